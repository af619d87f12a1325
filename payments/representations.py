"""How resources look in the API and in webhook events (one place, used by both)."""

from datetime import UTC, datetime


def iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with a trailing Z and microseconds (contract §1)."""
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
