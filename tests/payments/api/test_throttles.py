"""Throttles per client address (core/throttles.py): failed authentication (never refusing a
valid key), payment attempts from a hosted page (also per session) and operators' callbacks. Each
test calls from an address of its own, since the counts live in the cache, which outlives a test.
The staff sign-in lockout: test_throttles_staff_sign_in.py."""

import random

import pytest
from rest_framework.test import APIClient

from tests.factories import make_session, merchant_with_keys
from tests.helpers import broker_down

pytestmark = pytest.mark.django_db


@pytest.fixture
def address() -> str:
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


def assert_rate_limited(response):
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    error = response.json()["error"]
    assert (error["type"], error["code"]) == ("rate_limit_error", "rate_limited")


def test_an_address_sending_wrong_keys_is_stopped_but_never_a_valid_key(
    settings, address, merchant_keys
):
    settings.THROTTLE_AUTH_FAILURES = "3/m"
    client = APIClient(REMOTE_ADDR=address)
    for guess in ("sk_test_nope1", "sk_test_nope2", "Basic abc"):
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {guess}")
        assert client.get("/v1/charges").status_code == 401
    client.credentials(HTTP_AUTHORIZATION="Bearer sk_test_nope3")
    assert_rate_limited(client.get("/v1/charges"))

    # The same address with a valid key: served, as often as it likes.
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {merchant_keys.test_key.plaintext}")
    assert [client.get("/v1/charges").status_code for _ in range(3)] == [200] * 3
    # And its wrong keys are still refused for the rest of the window.
    client.credentials(HTTP_AUTHORIZATION="Bearer sk_test_nope4")
    assert_rate_limited(client.get("/v1/charges"))


def test_one_client_behind_a_proxy_sending_wrong_keys_locks_out_no_merchant(settings, address):
    """Behind a proxy that is not declared (THROTTLE_TRUSTED_PROXIES=0, the default) every
    client has the proxy's address."""
    settings.THROTTLE_AUTH_FAILURES = "20/m"
    settings.THROTTLE_TRUSTED_PROXIES = 0
    anonymous = APIClient(REMOTE_ADDR=address)
    anonymous.credentials(HTTP_AUTHORIZATION="Bearer sk_live_guess")
    assert [anonymous.get("/v1/charges").status_code for _ in range(20)] == [401] * 20
    assert_rate_limited(anonymous.get("/v1/charges"))

    for created in (merchant_with_keys(), merchant_with_keys(name="Pharmacie Limete")):
        for key in (created.test_key, created.live_key):
            merchant = APIClient(REMOTE_ADDR=address)
            merchant.credentials(HTTP_AUTHORIZATION=f"Bearer {key.plaintext}")
            assert merchant.get("/v1/charges").status_code == 200
            assert merchant.get("/v1/balance").status_code == 200
    assert_rate_limited(anonymous.get("/v1/charges"))


def test_good_keys_are_never_counted(settings, address, merchant_keys):
    settings.THROTTLE_AUTH_FAILURES = "2/m"
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {merchant_keys.test_key.plaintext}")
    assert all(client.get("/v1/charges").status_code == 200 for _ in range(5))


def test_the_forwarded_address_counts_only_behind_a_trusted_proxy(settings, merchant_keys):
    settings.THROTTLE_AUTH_FAILURES = "1/m"
    settings.THROTTLE_TRUSTED_PROXIES = 1
    client = APIClient(REMOTE_ADDR="10.9.9.9")
    client.credentials(HTTP_AUTHORIZATION="Bearer sk_test_wrong")
    seen_by_proxy = f"41.243.{random.randrange(256)}.{random.randrange(1, 255)}"
    forged = {"HTTP_X_FORWARDED_FOR": f"1.2.3.4, {seen_by_proxy}"}
    assert client.get("/v1/charges", **forged).status_code == 401
    assert_rate_limited(client.get("/v1/charges", **forged))
    # Another client behind the same proxy is not punished for it.
    other = {"HTTP_X_FORWARDED_FOR": f"41.243.{random.randrange(256)}.{random.randrange(1, 255)}"}
    assert client.get("/v1/charges", **other).status_code == 401


def test_payment_attempts_are_limited_per_session(settings, client, merchant, address):
    settings.THROTTLE_CHECKOUT_ATTEMPTS_SESSION = "2/h"
    session = make_session(merchant)
    url = f"/pay/{session.id}/mobile-money"
    form = {"phone": "+243812345678", "network": ""}
    for _ in range(2):
        assert client.post(url, form, REMOTE_ADDR=address).status_code == 303
    page = client.post(url, form, REMOTE_ADDR=address)
    assert page.status_code == 429 and int(page["Retry-After"]) >= 1
    assert "Trop de tentatives de paiement" in page.text  # the page, in its own language
    assert 'data-method="mobile_money"' in page.text  # and it still offers to pay later


def test_payment_attempts_are_limited_per_address(settings, client, merchant, address):
    settings.THROTTLE_CHECKOUT_ATTEMPTS_ADDRESS = "2/h"
    sessions = [make_session(merchant) for _ in range(3)]
    form = {"phone": "+243812345678", "network": ""}
    for session in sessions[:2]:
        response = client.post(f"/pay/{session.id}/mobile-money", form, REMOTE_ADDR=address)
        assert response.status_code == 303
    page = client.post(
        f"/pay/{sessions[2].id}/mobile-money",
        form,
        REMOTE_ADDR=address,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert page.status_code == 429
    assert sessions[2].charges.count() == 0  # no prompt was sent


def test_callbacks_are_limited_per_address(settings, client, address):
    settings.THROTTLE_CALLBACKS = "2/m"
    for _ in range(2):
        response = client.post(
            "/providers/airtel_money/callback", "{}", content_type="application/json",
            REMOTE_ADDR=address,
        )  # fmt: skip
        assert response.status_code != 429
    assert_rate_limited(
        client.post(
            "/providers/airtel_money/callback",
            "{}",
            content_type="application/json",
            REMOTE_ADDR=address,
        )  # fmt: skip
    )
    assert_rate_limited(
        client.post("/card/notify", {}, REMOTE_ADDR=address)  # counted with the callbacks
    )


@pytest.mark.redis
def test_throttles_let_requests_through_while_the_cache_is_down(settings, address):
    settings.THROTTLE_AUTH_FAILURES = "1/m"
    client = APIClient(REMOTE_ADDR=address)
    client.credentials(HTTP_AUTHORIZATION="Bearer sk_test_wrong")
    with broker_down():
        assert [client.get("/v1/charges").status_code for _ in range(2)] == [401, 401]
