"""The /v1 machinery every app's API is built on: errors and their one handler, middleware,
pagination, parsers, renderers, the gate and its throttle."""
