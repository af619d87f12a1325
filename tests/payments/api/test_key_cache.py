"""The API key cache (payments/api/principals.py): each process keeps the keys it has read, and
every change of a key or a merchant reaches every process at once, through the generation kept
in the shared cache. Tested across two processes (a real gunicorn on the test database) and
across two cache clients."""

import pytest
import redis
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache

from core.api import gate
from core.api.authentication import hash_api_key
from payments.api import principals
from payments.services import accounts
from tests.factories import merchant_with_keys
from tests.helpers import api_client, assert_error, broker_down

CARD = {"amount": 1999, "currency": "USD", "payment_method": "card"}


def test_revoking_a_key_takes_effect_at_once_in_another_process(server):
    created = merchant_with_keys()
    key = created.test_key.plaintext
    assert [server(key)[0] for _ in range(3)] == [200, 200, 200]  # read once, then cached there
    here = api_client(key)
    assert here.get("/v1/webhook_endpoint").status_code == 200  # and cached here

    accounts.api_key_revoke(api_key=created.test_key.api_key)

    status, body = server(key)
    assert (status, body["error"]["code"]) == (401, "invalid_api_key")
    assert_error(here.get("/v1/webhook_endpoint"), 401, "authentication_error", "invalid_api_key")
    assert server(created.live_key.plaintext)[0] == 200  # the merchant's other key still works


def test_a_merchant_changed_by_staff_is_seen_at_once_by_another_process(server):
    created = merchant_with_keys()
    key = created.test_key.plaintext
    assert server(key, "POST", "/v1/charges", CARD)[0] == 201

    merchant = created.merchant
    merchant.card_rail_enabled = False
    merchant.save()  # as the admin saves it

    status, body = server(key, "POST", "/v1/charges", CARD)
    assert (status, body["error"]["code"]) == (403, "card_rail_disabled")


@pytest.mark.django_db
def test_a_key_cached_under_an_old_generation_is_read_again(django_assert_num_queries):
    created = merchant_with_keys()
    key_hash = hash_api_key(created.test_key.plaintext)
    generation = gate.ask(address="192.0.2.1", rate_ident=None, rate_text="1/s").generation
    assert generation is not None
    principals.lookup(key_hash, generation=generation)  # read and cached
    with django_assert_num_queries(0):
        assert principals.lookup(key_hash, generation=generation).pk == created.test_key.api_key.pk

    # Another process bumps the generation through a cache client of its own.
    other = caches.create_connection("default")
    if isinstance(other, RedisCache):
        redis.Redis.from_url(settings.REDIS_URL).incr(other.make_key(gate.GENERATION_KEY))
    else:
        other.incr(gate.GENERATION_KEY)
    bumped = gate.ask(address="192.0.2.1", rate_ident=None, rate_text="1/s").generation
    assert bumped != generation
    with django_assert_num_queries(1):  # the cached key is not trusted: it is read again
        assert principals.lookup(key_hash, generation=bumped) is not None


@pytest.mark.django_db
def test_each_request_gets_its_own_key_and_merchant(django_assert_num_queries):
    """What one request does to the key and merchant it was given reaches no other request."""
    created = merchant_with_keys()
    key_hash = hash_api_key(created.test_key.plaintext)
    generation = gate.ask(address="192.0.2.3", rate_ident=None, rate_text="1/s").generation
    first = principals.lookup(key_hash, generation=generation)
    first.merchant.card_rail_enabled = not first.merchant.card_rail_enabled
    first.mode = "live"
    with django_assert_num_queries(0):
        again = principals.lookup(key_hash, generation=generation)
    assert again is not first and again.merchant is not first.merchant
    assert again.merchant.card_rail_enabled == created.merchant.card_rail_enabled
    assert (again.mode, again.merchant_id) == ("test", created.merchant.pk)
    assert again.merchant.pk == created.merchant.pk and again.last_used_at is not None
    assert not again._state.adding  # as loaded from the database: a save() updates its row


@pytest.mark.django_db
def test_a_revoked_key_is_never_found_in_the_cache():
    created = merchant_with_keys()
    key_hash = hash_api_key(created.test_key.plaintext)

    def generation():
        return gate.ask(address="192.0.2.2", rate_ident=None, rate_text="1/s").generation

    assert principals.lookup(key_hash, generation=generation()) is not None
    accounts.api_key_revoke(api_key=created.test_key.api_key)
    assert principals.lookup(key_hash, generation=generation()) is None


@pytest.mark.redis
@pytest.mark.django_db
def test_while_the_cache_is_down_every_request_reads_its_key(
    merchant_keys, django_assert_num_queries
):
    client = api_client(merchant_keys.test_key.plaintext)
    assert client.get("/v1/balance").status_code == 200  # cached
    with broker_down():
        for _ in range(2):
            with django_assert_num_queries(2):  # the key, then the balance
                assert client.get("/v1/balance").status_code == 200
        accounts.api_key_revoke(api_key=merchant_keys.test_key.api_key)
        assert client.get("/v1/balance").status_code == 401
    # Back: the key revoked while the cache could not be told stays refused.
    assert client.get("/v1/balance").status_code == 401
