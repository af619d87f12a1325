"""Clients that go silent in the middle of a request (a phone that lost its network, a socket held
open on purpose) through a real gunicorn with production's settings (config/gunicorn.py), here
with CLIENT_IDLE_TIMEOUT=1: each is dropped, a body cut short is answered 408 in the envelope,
and the threads they held serve everyone else again."""

import json
import socket
import time
from datetime import UTC, datetime, timedelta
from urllib.parse import urlsplit

import pytest

from payments.models import Charge, LedgerEntry
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


@pytest.mark.postgres
@pytest.mark.books_unchecked  # ledger rows written straight into the table: only their volume
def test_clients_that_stop_reading_their_answer_do_not_hold_the_service(server):
    """Three clients, more than the worker's two threads, ask for a statement of 80,000 rows
    (megabytes, more than the sockets' buffers hold once the client's window is closed) and never
    read it: each thread's write gives up after CLIENT_IDLE_TIMEOUT and the connection is closed,
    so a request from anyone else is still answered."""
    keys = merchant_with_keys()
    start = datetime(2025, 11, 1, tzinfo=UTC)
    LedgerEntry.objects.bulk_create(
        [
            LedgerEntry(
                merchant=keys.merchant,
                livemode=False,
                currency="CDF",
                type="charge",
                amount=10000 + n,
                source=f"ch_{n:024d}",
                created_at=start + timedelta(minutes=n),
            )
            for n in range(80_000)
        ],
        batch_size=10_000,
    )
    key = keys.test_key.plaintext
    request = (
        "GET /v1/balance_transactions/export HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {key}\r\n\r\n"
    ).encode()
    stalled = []
    for _ in range(3):
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a small window, never read
        address = urlsplit(server.base)
        sock.connect((address.hostname, address.port))
        sock.sendall(request)
        stalled.append(sock)
    sent = time.monotonic()
    time.sleep(1)  # their statements fill the buffers and block both threads
    status, body = server(key, "GET", "/v1/webhook_endpoint")
    assert status == 200, body
    assert time.monotonic() - sent < 12
    time.sleep(max(0.0, sent + 12 - time.monotonic()))  # longer than making a statement takes
    for sock in stalled:  # each was dropped part way: its statement never ends
        sock.settimeout(20)
        received = b""
        try:
            while chunk := sock.recv(1 << 20):
                received += chunk
        except ConnectionResetError:
            pass
        sock.close()
        assert received.startswith(b"HTTP/1.1 200 OK")
        assert not received.endswith(b"\r\n0\r\n\r\n")  # the last chunk never came
        assert received.count(b"\r\n") < 80_000
    time.sleep(0.5)
    log = server.log.read_text()
    assert "Traceback" not in log
