"""At most two statements (GET /v1/balance_transactions/export) at once per account and mode,
counted in the shared cache (Redis with REDIS_URL, else the embedded set-up's file cache): a
third is refused 429 `rate_limited` with Retry-After until one of them ends or its client goes,
so that no key can hold every web server thread with statements it reads slowly. A slot whose
process died frees itself after its lease; one whose answer is still being read is renewed."""

import time

from django.core.cache import cache
from django.core.signals import request_finished
from django.db import close_old_connections

from core import slots
from tests.factories import merchant_with_keys
from tests.helpers import api_client, wait_for

EXPORT = "/v1/balance_transactions/export?date_from=2026-11-21&date_to=2026-11-21"


def open_statement(client):
    response = client.get(EXPORT)
    assert response.status_code == 200, response.content
    return response


def read(response) -> bytes:
    """Read to its end (the test client then closes it, as the server does)."""
    return b"".join(response.streaming_content)


def client_gone(response) -> None:
    """The server closes an answer its client left unread (here without ending the test's
    database connection, which the test client's request_finished would otherwise close)."""
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)


def test_a_third_statement_at_once_is_refused_until_one_ends(merchant_keys):
    test_key, live_key = merchant_keys.test_key.plaintext, merchant_keys.live_key.plaintext
    first, second = open_statement(api_client(test_key)), open_statement(api_client(test_key))
    refused = api_client(test_key).get(EXPORT, HTTP_ACCEPT_LANGUAGE="fr")
    assert refused.status_code == 429
    assert refused["Retry-After"] == "5"
    error = refused.json()["error"]
    assert (error["type"], error["code"]) == ("rate_limit_error", "rate_limited")
    assert error["message"] == (
        "Les relevés de ce compte sont déjà en cours d’envoi, 2 à la fois : réessayez quand "
        "l’un d’eux sera terminé."
    )
    english = api_client(test_key).get(EXPORT).json()["error"]["message"]
    assert english.startswith("This account's statements are already being sent, 2 at once")
    # The other mode, and another account, have their own.
    read(open_statement(api_client(live_key)))
    read(open_statement(api_client(merchant_with_keys(name="Autre").test_key.plaintext)))
    # One whose client went before reading anything (the server closes the answer): free again.
    client_gone(second)
    fourth = open_statement(api_client(test_key))
    # One read to its end: free again (with the first still held, a fifth would be refused).
    assert read(fourth).startswith(b"\xef\xbb\xbfid,")
    read(open_statement(api_client(test_key)))
    client_gone(first)


def test_a_slot_is_renewed_while_read_and_freed_after_its_lease_when_its_process_died(
    monkeypatch,
):
    monkeypatch.setattr(slots, "LEASE", 2)
    monkeypatch.setattr(slots, "RENEW", 0)
    holder = f"test-{time.monotonic_ns()}"
    reading = slots.take("statement", holder, 1).holding(iter(range(100)))
    assert slots.take("statement", holder, 1) is None
    for _ in range(6):  # 3 s, longer than the lease: renewed as it is read
        next(reading)
        time.sleep(0.5)
    assert slots.take("statement", holder, 1) is None
    reading.close()
    assert cache.get(f"slot:statement:{holder}:0") is None
    died = slots.take("statement", holder, 1)  # never read nor closed: its process died
    assert died is not None and slots.take("statement", holder, 1) is None
    wait_for(lambda: slots.take("statement", holder, 1), timeout=60)  # free once its lease ends


def test_without_a_cache_the_statement_is_sent_uncounted(merchant_keys, settings, caplog):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.2},
        }
    }
    slot = slots.take("statement", "nobody", 1)
    assert slot is not None and slot.key is None
    assert list(slot.holding(["a", "b"])) == ["a", "b"]
    slot.close()
    assert "statement slots not counted, cache unavailable" in caplog.text
