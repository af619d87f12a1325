"""Hosted checkout: sessions, their API, the customer-facing pages and the card return handler."""
