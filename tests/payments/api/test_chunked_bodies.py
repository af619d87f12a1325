"""A body sent without Content-Length (Transfer-Encoding: chunked), as some HTTP clients stream
it, through a real gunicorn: read whole, and capped at MAX_REQUEST_BODY like any other."""

import http.client
import json
from urllib.parse import urlsplit

import pytest
from django.conf import settings

from payments.models import Charge
from tests.factories import merchant_with_keys

BODY = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


def post_chunked(base: str, key: str, path: str, chunks) -> tuple[int, dict]:
    address = urlsplit(base)
    connection = http.client.HTTPConnection(address.hostname, address.port, timeout=20)
    try:
        connection.request(
            "POST",
            path,
            body=iter(chunks),
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
            encode_chunked=True,
        )
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


@pytest.fixture
def key():
    return merchant_with_keys().test_key.plaintext


def test_a_chunked_charge_is_read_whole(server, key):
    text = json.dumps(BODY).encode()
    chunks = [text[i : i + 7] for i in range(0, len(text), 7)]  # many small chunks
    status, body = post_chunked(server.base, key, "/v1/charges", chunks)
    assert status == 201, body
    charge = Charge.objects.get(pk=body["id"])
    assert (charge.amount, charge.phone) == (250000, "+243812345678")


def test_a_chunked_body_over_the_limit_is_413(server, key):
    piece = b" " * 65536
    chunks = (
        [b'{"amount": 1000,'] + [piece] * (settings.MAX_REQUEST_BODY // len(piece) + 1) + [b"}"]
    )
    status, body = post_chunked(server.base, key, "/v1/charges", chunks)
    assert status == 413, body
    assert body["error"]["code"] == "request_too_large"
    assert not Charge.objects.exists()


def test_a_chunked_body_that_is_not_json_is_invalid_json(server, key):
    status, body = post_chunked(server.base, key, "/v1/charges", [b'{"amount": ', b"1000"])
    assert status == 400, body
    assert body["error"]["code"] == "invalid_json"
