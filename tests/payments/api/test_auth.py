"""Authentication and modes."""

import pytest
from rest_framework.test import APIClient

from core.api.authentication import hash_api_key
from payments.models import ApiKey
from payments.services import accounts
from tests.factories import merchant_with_keys
from tests.helpers import assert_error

pytestmark = pytest.mark.django_db


def client_with(header: str | None) -> APIClient:
    client = APIClient()
    if header is not None:
        client.credentials(HTTP_AUTHORIZATION=header)
    return client


def test_missing_key_is_401_missing_api_key():
    response = client_with(None).get("/v1/webhook_endpoint")
    assert_error(response, 401, "authentication_error", "missing_api_key")


@pytest.mark.parametrize(
    "header",
    [
        "Bearer sk_test_doesnotexist0000000000000000000",
        "Bearer sk_live_doesnotexist0000000000000000000",
        "Basic c2tfdGVzdF9hYmM6",
        "Bearer pk_test_abc",
        "Bearer",
        "sk_test_abc",
        "Bearer sk_test_abc extra",
    ],
)
def test_unknown_or_malformed_key_is_401_invalid_api_key(header):
    merchant_with_keys()
    assert_error(
        client_with(header).get("/v1/webhook_endpoint"),
        401,
        "authentication_error",
        "invalid_api_key",
    )


def test_revoked_key_is_refused_at_once():
    created = merchant_with_keys()
    client = client_with(f"Bearer {created.test_key.plaintext}")
    assert client.get("/v1/webhook_endpoint").status_code == 200
    accounts.api_key_revoke(api_key=created.test_key.api_key)
    assert_error(client.get("/v1/webhook_endpoint"), 401, "authentication_error", "invalid_api_key")


def test_several_keys_per_mode_and_rotation():
    created = merchant_with_keys()
    second = accounts.api_key_create(merchant=created.merchant, mode="test")
    accounts.api_key_revoke(api_key=created.test_key.api_key)
    assert client_with(f"Bearer {second.plaintext}").get("/v1/webhook_endpoint").status_code == 200


def test_keys_are_stored_only_as_hashes():
    created = merchant_with_keys()
    for issued in (created.test_key, created.live_key):
        row = ApiKey.objects.filter(pk=issued.api_key.pk).values().get()
        for value in row.values():
            assert issued.plaintext not in str(value)
        assert row["key_hash"] == hash_api_key(issued.plaintext)
        assert row["prefix"].startswith(issued.plaintext[:12])
        assert issued.plaintext[12:-4] not in row["prefix"]


def test_key_mode_is_the_request_mode():
    created = merchant_with_keys()
    assert created.test_key.plaintext.startswith("sk_test_")
    assert created.live_key.plaintext.startswith("sk_live_")
    assert created.test_key.api_key.livemode is False
    assert created.live_key.api_key.livemode is True


def test_last_used_is_recorded():
    created = merchant_with_keys()
    client_with(f"Bearer {created.test_key.plaintext}").get("/v1/webhook_endpoint")
    created.test_key.api_key.refresh_from_db()
    assert created.test_key.api_key.last_used_at is not None
