"""Clients that go silent in the middle of a request (a phone that lost its network, a socket held
open on purpose) through a real gunicorn with production's settings (config/gunicorn.py), here
with CLIENT_IDLE_TIMEOUT=1: each is dropped, a body cut short is answered 408 in the envelope,
and the threads they held serve everyone else again."""

import json
import socket
import time
from urllib.parse import urlsplit

import pytest

from payments.models import Charge
from tests.factories import merchant_with_keys

HEAD = "POST /v1/charges HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n"


@pytest.fixture
def key():
    return merchant_with_keys().test_key.plaintext


def connect(server) -> socket.socket:
    address = urlsplit(server.base)
    sock = socket.create_connection((address.hostname, address.port), timeout=30)
    return sock


def answer(sock: socket.socket) -> tuple[str, bytes]:
    """The status line and body of what the server sent before closing."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0].decode(), body


def test_a_body_that_stops_arriving_is_answered_408_in_the_envelope(server, key):
    sock = connect(server)
    started = time.monotonic()
    sock.sendall(
        (
            HEAD.format(key=key) + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        ).encode()
        + b'{"amount": 25'
    )
    status, body = answer(sock)
    assert status == "HTTP/1.1 408 Request Timeout"
    error = json.loads(body)["error"]
    assert (error["type"], error["code"]) == ("invalid_request_error", "request_timeout")
    assert error["request_id"].startswith("req_")
    assert time.monotonic() - started < 10
    assert not Charge.objects.exists()


def test_silent_clients_do_not_hold_the_service(server, key):
    """Four silent clients, more than the worker's two threads: two stop within their headers,
    two within their bodies. A request from anyone else is still answered."""
    request = (
        HEAD.format(key=key) + "Content-Type: application/json\r\nContent-Length: 80\r\n\r\n{"
    ).encode()
    within_headers = request[: request.index(b"Authoriz")]  # the request line and Host only
    silent = []
    for sent in (within_headers, within_headers, request, request):  # a body of 1 byte out of 80
        sock = connect(server)
        sock.sendall(sent)
        silent.append(sock)
    time.sleep(0.5)  # they hold both threads now
    started = time.monotonic()
    status, body = server(key, "POST", "/v1/charges", {"amount": 250000, "currency": "CDF",
                                                       "phone": "+243812345678",
                                                       "network": "VODACOM_MPESA"})  # fmt: skip
    assert status == 201, body
    assert time.monotonic() - started < 9
    # Each is closed (never left hanging): the two within their headers without an answer, the
    # two within their bodies after a 408.
    statuses = [answer(sock)[0] for sock in silent]
    assert statuses == ["", "", "HTTP/1.1 408 Request Timeout", "HTTP/1.1 408 Request Timeout"]
    for sock in silent:
        sock.close()
    time.sleep(0.5)
    log = server.log.read_text()
    assert log.count("client silent for 1.0 s: connection dropped") == 2  # the two headers
    assert log.count("408 request_timeout") == 2  # the two bodies
    assert "Traceback" not in log
