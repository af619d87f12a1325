"""The rate limit per API key (API_RATE_LIMIT): a sliding window counted in the shared cache, the
same for every client and process using the key; requests it refuses are not counted."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.test import override_settings

from tests.factories import merchant_with_keys
from tests.helpers import api_client, assert_error

pytestmark = pytest.mark.django_db

# The start of a minute, far from any other test's windows.
T0 = datetime(2031, 3, 4, 10, 0, 0, tzinfo=UTC)


def rate(text: str):
    from django.conf import settings

    return override_settings(
        REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"api_key": text}}
    )


def codes(client, count: int) -> list[int]:
    return [client.get("/v1/webhook_endpoint").status_code for _ in range(count)]


def test_the_window_slides_rather_than_resetting_at_each_minute():
    created = merchant_with_keys()
    client = api_client(created.test_key.plaintext)
    with rate("4/m"):
        with time_machine.travel(T0 + timedelta(seconds=50), tick=False):
            assert codes(client, 5) == [200, 200, 200, 200, 429]
        # 15 s into the next minute three quarters of the last one still count: 4 × 0.75 = 3.
        with time_machine.travel(T0 + timedelta(seconds=75), tick=False):
            response = client.get("/v1/webhook_endpoint")
            assert response.status_code == 200
            refused = client.get("/v1/webhook_endpoint")
            assert_error(refused, 429, "rate_limit_error", "rate_limited")
            assert 1 <= int(refused["Retry-After"]) <= 60
        # Half-way, two of the last minute's count: two more.
        with time_machine.travel(T0 + timedelta(seconds=90), tick=False):
            assert codes(client, 2) == [200, 429]
        # Two minutes on, the last minute had only those three: a fresh count.
        with time_machine.travel(T0 + timedelta(seconds=181), tick=False):
            assert codes(client, 5) == [200, 200, 200, 200, 429]


def test_the_limit_is_the_keys_whatever_the_client_and_refusals_do_not_count():
    created = merchant_with_keys()
    first, second = (api_client(created.test_key.plaintext) for _ in range(2))
    live = api_client(created.live_key.plaintext)
    with rate("3/m"), time_machine.travel(T0 + timedelta(hours=1), tick=False):
        assert codes(first, 2) + codes(second, 2) == [200, 200, 200, 429]
        assert codes(live, 3) == [200, 200, 200]  # another key, its own count
        assert codes(first, 10) == [429] * 10  # refused, and not counted
    # Half-way through the next minute half of the last one's three still count: one more. Had
    # the refusals counted, nothing would pass.
    with rate("3/m"), time_machine.travel(T0 + timedelta(hours=1, seconds=90), tick=False):
        assert codes(second, 2) == [200, 429]


@pytest.mark.redis
def test_redis_forgetting_the_script_or_dropping_the_connection_loses_no_count():
    import redis
    from django.conf import settings

    from core.api import gate

    created = merchant_with_keys()
    client = api_client(created.test_key.plaintext)
    other = redis.Redis.from_url(settings.REDIS_URL)
    with rate("3/m"), time_machine.travel(T0 + timedelta(hours=2), tick=False):
        assert codes(client, 1) == [200]
        other.script_flush()  # as after a restart: EVALSHA answers NOSCRIPT
        assert codes(client, 1) == [200]
        # The connection the gate's requests use (redis-py's pool hands out the last one back).
        connection_id = gate.redis_client().client_id()
        other.client_kill_filter(_id=connection_id)  # closed by the other end
        assert codes(client, 2) == [200, 429]
