"""The /v1 API of webhooks: the default endpoint per mode and the events."""
