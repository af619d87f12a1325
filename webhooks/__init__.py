"""Webhooks: the event outbox, signed deliveries with retries, and the events API."""
