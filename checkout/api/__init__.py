"""The /v1 API of checkout sessions: views and routes."""
