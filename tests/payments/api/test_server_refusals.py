"""What the web server itself decides, before any view, through a real gunicorn with production's
config/gunicorn.py: a header that may be given once only, given twice. (What nginx refuses in
front of it: tests/deploy/test_nginx.py.)"""

import json
import re
import socket
from urllib.parse import urlsplit

import pytest

from payments.models import Charge, IdempotencyRecord
from tests.factories import merchant_with_keys

BODY = json.dumps(
    {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
)


def exchange(base: str, raw: bytes) -> tuple[int, dict, dict]:
    """Send `raw` as it is (no client library tidies it) and read the one answer:
    (status, headers with lower-case names, JSON body)."""
    address = urlsplit(base)
    with socket.create_connection((address.hostname, address.port), timeout=10) as sock:
        sock.sendall(raw)
        data = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length: *(\d+)", head)
            if length and len(body) >= int(length.group(1)):
                break
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, json.loads(body)


def post(key: str, *extra_headers: str) -> bytes:
    lines = [
        "POST /v1/charges HTTP/1.1",
        "Host: 127.0.0.1",
        f"Authorization: Bearer {key}",
        "Content-Type: application/json",
        f"Content-Length: {len(BODY)}",
        "Connection: close",
        *extra_headers,
    ]
    return ("\r\n".join(lines) + "\r\n\r\n" + BODY).encode()


@pytest.fixture
def key():
    return merchant_with_keys().test_key.plaintext


def test_an_idempotency_key_given_twice_is_refused_and_nothing_is_made(server, key):
    status, headers, body = exchange(
        server.base, post(key, "Idempotency-Key: order-1", "Idempotency-Key: order-2")
    )
    assert status == 400, body
    assert body["error"]["type"] == "idempotency_error"
    assert body["error"]["code"] == "idempotency_key_invalid"
    assert body["error"]["param"] == "Idempotency-Key"
    assert "more than once" in body["error"]["message"]
    assert body["error"]["request_id"] == headers["request-id"]
    assert not Charge.objects.exists()
    assert not IdempotencyRecord.objects.exists()

    # the same key twice is refused too: which of two headers a proxy keeps is not ours to guess
    status, _, body = exchange(
        server.base, post(key, "Idempotency-Key: order-1", "idempotency-key: order-1")
    )
    assert (status, body["error"]["code"]) == (400, "idempotency_key_invalid")
    assert not Charge.objects.exists()


def test_one_key_with_a_comma_is_one_key_and_is_honoured(server, key):
    first = exchange(server.base, post(key, "Idempotency-Key: order-1,order-2"))
    again = exchange(server.base, post(key, "Idempotency-Key: order-1,order-2"))
    assert first[0] == again[0] == 201, (first, again)
    assert first[2]["id"] == again[2]["id"]
    assert again[1]["idempotent-replayed"] == "true"
    assert Charge.objects.count() == 1
    assert IdempotencyRecord.objects.get().key == "order-1,order-2"


def test_the_servers_mark_cannot_be_sent_by_a_client(server, key):
    """The name the server marks repeated headers with is dropped when a client sends it, so a
    client cannot have its own single key refused, nor hide a repeated one behind an empty mark."""
    status, _, body = exchange(
        server.base,
        post(key, "Idempotency-Key: order-9", "X-Repeated-Headers: IDEMPOTENCY-KEY"),
    )
    assert status == 201, body
    status, _, body = exchange(
        server.base,
        post(
            key,
            "X-Repeated-Headers: ",
            "Idempotency-Key: order-10",
            "Idempotency-Key: order-11",
        ),
    )
    assert (status, body["error"]["code"]) == (400, "idempotency_key_invalid")
    assert Charge.objects.count() == 1


def test_a_page_form_django_refuses_is_one_warning_line(server):
    """A hosted page's form of too many fields is refused by Django as suspicious (400); its
    log says so in one warning line, without the traceback of Django's own refusal."""
    import requests

    from tests.factories import make_session

    session = make_session(merchant_with_keys().merchant)
    with requests.Session() as browser:  # the page first, for its CSRF cookie, as a browser does
        assert browser.get(f"{server.base}/pay/{session.id}", timeout=10).status_code == 200
        form = {f"f{n}": "1" for n in range(2000)}
        form["csrfmiddlewaretoken"] = browser.cookies["csrftoken"]
        answer = browser.post(f"{server.base}/pay/{session.id}/mobile-money", data=form, timeout=10)
    assert answer.status_code == 400
    log = server.log.read_text()
    assert "WARNING django.security.TooManyFieldsSent" in log
    assert "Traceback" not in log and "ERROR" not in log
