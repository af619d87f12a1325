"""Every timestamp of the API and the webhooks: ISO 8601 in UTC, microseconds and a Z."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from payments.representations import iso


@pytest.mark.parametrize(
    "value, text",
    [
        (datetime(2026, 11, 25, 9, 30, tzinfo=UTC), "2026-11-25T09:30:00.000000Z"),
        (datetime(2026, 11, 25, 9, 30, 5, 7, tzinfo=UTC), "2026-11-25T09:30:05.000007Z"),
        # Kinshasa (UTC+1) just after midnight is the day before in UTC
        (
            datetime(2026, 1, 1, 0, 15, 0, 123456, tzinfo=timezone(timedelta(hours=1))),
            "2025-12-31T23:15:00.123456Z",
        ),
        (None, None),
    ],
)
def test_iso_is_utc_with_microseconds_and_z(value, text):
    assert iso(value) == text
    if value is not None:
        assert iso(value) == value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
