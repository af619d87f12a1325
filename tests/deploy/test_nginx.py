"""The service as deployed: Debian's nginx with deploy/nginx/ in front of a real gunicorn with
config/gunicorn.py (gunicorn's own threaded worker, one worker of two threads here). Clients
sending slowly, or not reading, hold nginx connections and nobody's thread; what nginx refuses
by itself never reaches gunicorn, and on /v1 it is the API's JSON error envelope."""

import json
import re
import socket
import threading
import time
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest

from payments.models import Charge
from tests.factories import merchant_with_keys
from tests.helpers import free_port, wait_for

pytestmark = pytest.mark.nginx

REQUEST_ID = re.compile(r"req_[A-Za-z0-9]{24}")
CHARGE = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


@pytest.fixture
def key():
    return merchant_with_keys().test_key.plaintext


@pytest.fixture
def proxy(server, nginx) -> str:
    """nginx in front of the server fixture's gunicorn: its base URL."""
    return nginx(urlsplit(server.base).port)


def connect(base: str, receive_buffer: int | None = None) -> socket.socket:
    address = urlsplit(base)
    sock = socket.socket()
    if receive_buffer:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
    sock.settimeout(30)
    sock.connect((address.hostname, address.port))
    return sock


def exchange(base: str, raw: bytes) -> tuple[int, dict, bytes]:
    """Send `raw` as it is and read the answer up to the connection's end or its length:
    (status, headers with lower-case names, body)."""
    with connect(base) as sock:
        sock.sendall(raw)
        data = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length: *(\d+)", head)
            if length and len(body) >= int(length.group(1)):
                break
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers, body


def assert_envelope(answer, status: int, type: str, code: str, param=None) -> dict:
    got, headers, body = answer
    assert got == status, body
    assert headers["content-type"] == "application/json; charset=utf-8"
    error = json.loads(body)["error"]
    assert (error["type"], error["code"], error["param"]) == (type, code, param)
    assert REQUEST_ID.fullmatch(error["request_id"])
    assert headers["request-id"] == error["request_id"]
    assert headers["cache-control"] == "no-store"  # as every /v1 answer
    return error


def assert_html(answer, status: int) -> None:
    got, headers, body = answer
    assert got == status, body
    assert headers["content-type"] == "text/html"
    assert b"<html>" in body


def get(base: str, path: str, key: str | None = None, timeout: float = 60):
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    request = urllib.request.Request(base + path, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def largest_static_file(static_root) -> str:
    """The largest collected file with a hashed name, as a path under /static/."""
    hashed = [p for p in static_root.rglob("*") if re.search(r"\.[0-9a-f]{12}\.\w+$", p.name)]
    largest = max(hashed, key=lambda p: p.stat().st_size)
    return "/static/" + largest.relative_to(static_root).as_posix()


def trickle(sock: socket.socket, data: bytes, every: float, stop: threading.Event) -> None:
    """Send `data` one byte every `every` seconds until stopped."""
    try:
        for byte in data:
            sock.send(bytes([byte]))
            if stop.wait(every):
                return
    except OSError:
        pass


def test_slow_senders_and_non_readers_leave_everyone_else_answered(proxy, server, key, static_root):
    """Twelve clients send a 2 MB body one byte every 3 s, twelve ask for the largest static
    file and never read it, against gunicorn's two threads: every one of 40 requests from anyone
    else meanwhile is answered. (gunicorn alone gives its two
    threads to the first two slow senders, and answers nobody else until they are done.)"""
    body_head = (
        "POST /v1/charges HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()
    two_megabytes = f"{2 * 1024 * 1024:x}\r\n".encode() + b"{" + b" " * (2 * 1024 * 1024)
    static = largest_static_file(static_root)
    assert urlsplit(static).path.endswith(".js")
    stop = threading.Event()
    clients, trickles = [], []
    try:
        for _ in range(12):
            sock = connect(proxy)
            sock.sendall(body_head)
            thread = threading.Thread(target=trickle, args=(sock, two_megabytes, 3, stop))
            thread.start()
            clients.append(sock)
            trickles.append(thread)
        for _ in range(12):
            sock = connect(proxy, receive_buffer=4096)
            sock.sendall(f"GET {static} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            clients.append(sock)
        time.sleep(0.5)  # each slow sender has begun its body, each non-reader its answer
        # Each waited for as long as it takes on a loaded machine: held threads would hold it
        # until the slow senders stop, which they do only after the last one.
        answered = [get(proxy, "/v1/webhook_endpoint", key, timeout=60)[0] for _ in range(40)]
    finally:
        stop.set()
        for thread in trickles:
            thread.join()
        for sock in clients:
            sock.close()
    assert answered == [200] * 40


def test_a_body_over_the_limit_is_413_in_the_envelope_and_never_reaches_gunicorn(
    proxy, access_log, key
):
    declared = (
        "POST /v1/charges HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {2 * 1024 * 1024}\r\n\r\n{{"
    ).encode()
    error = assert_envelope(
        exchange(proxy, declared), 413, "invalid_request_error", "request_too_large"
    )
    assert error["message"] == "The request body is larger than 1048576 bytes."
    chunked = (
        (
            "POST /v1/charges HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
            "Transfer-Encoding: chunked\r\n\r\n"
        ).encode()
        + f"{1024 * 1024 + 10:x}\r\n".encode()
        + b"{"
        + b" " * (1024 * 1024 + 9)
    )
    assert_envelope(exchange(proxy, chunked), 413, "invalid_request_error", "request_too_large")
    # A hosted page's form keeps nginx's page.
    page = (
        "POST /pay/cs_x/mobile-money HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Content-Length: {2 * 1024 * 1024}\r\n\r\n"
    ).encode()
    assert_html(exchange(proxy, page), 413)
    # gunicorn logs the next request it gets, and got none of those.
    assert get(proxy, "/v1/webhook_endpoint", key)[0] == 200
    wait_for(lambda: access_log.exists() and "GET /v1/webhook_endpoint" in access_log.read_text())
    assert "POST" not in access_log.read_text()
    assert not Charge.objects.exists()


def test_a_request_line_too_long_is_414_in_the_envelope(proxy, key):
    query = "q=" + "a" * 6 * 1024
    raw = f"GET /v1/charges?{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    assert_envelope(exchange(proxy, raw), 414, "invalid_request_error", "request_invalid")
    raw = f"GET /pay/cs_x?{query} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    assert_html(exchange(proxy, raw), 414)
    # a long query within the limit reaches the API
    status, _, body = get(proxy, "/v1/charges?limit=10&" + "x" * 3000, key)
    assert status != 414, body


def test_a_header_line_too_large_is_431_in_the_envelope(proxy):
    raw = b"GET /v1/charges HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"b" * 6000 + b"\r\n\r\n"
    assert_envelope(exchange(proxy, raw), 431, "invalid_request_error", "request_invalid")
    raw = b"GET /pay/cs_x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"b" * 6000 + b"\r\n\r\n"
    assert_html(exchange(proxy, raw), 400)


def test_a_malformed_api_request_is_400_in_the_envelope(proxy):
    raw = b"GET /v1/charges HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header Name: x\r\n\r\n"
    assert_envelope(exchange(proxy, raw), 400, "invalid_request_error", "request_invalid")


def test_gunicorn_down_is_502_in_the_envelope(nginx):
    proxy = nginx(free_port())  # nothing listens there
    answer = exchange(
        proxy,
        b"GET /v1/charges HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer sk_test_x\r\n\r\n",
    )
    error = assert_envelope(answer, 502, "api_error", "service_unavailable")
    assert "same Idempotency-Key" in error["message"]
    assert answer[1]["retry-after"] == "1"
    assert_html(exchange(proxy, b"GET /pay/cs_x HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"), 502)


def test_static_files_are_nginxs_and_hashed_names_cached_long(proxy, access_log, key, static_root):
    static = largest_static_file(static_root)
    status, headers, body = get(proxy, static)
    assert status == 200
    assert body == (static_root / static.removeprefix("/static/")).read_bytes()
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    plain = re.sub(r"\.[0-9a-f]{12}(\.\w+)$", r"\1", static)
    status, headers, _ = get(proxy, plain)
    assert (status, headers["Cache-Control"]) == (200, "public, max-age=60")
    assert get(proxy, plain + ".map")[0] == 404  # never collected
    assert get(proxy, "/v1/webhook_endpoint", key)[0] == 200
    wait_for(lambda: access_log.exists() and "/v1/webhook_endpoint" in access_log.read_text())
    assert "/static/" not in access_log.read_text()


def test_gunicorn_is_told_the_client_address_and_scheme_on_kept_alive_connections(
    proxy, access_log, key
):
    for _ in range(3):
        assert get(proxy, "/v1/webhook_endpoint", key)[0] == 200
    wait_for(lambda: access_log.exists() and access_log.read_text().count("/v1/") >= 3)
    for line in access_log.read_text().splitlines():
        if '"GET /healthz ' in line:  # the server fixture's own call, to see that it is up
            continue
        assert line.startswith('127.0.0.1 http "GET /v1/webhook_endpoint HTTP/1.1" 200'), line


def test_an_idempotency_key_given_twice_is_still_refused_behind_nginx(proxy, key):
    body = json.dumps(CHARGE)
    raw = (
        "POST /v1/charges HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
        "Idempotency-Key: order-1\r\nIdempotency-Key: order-2\r\n"
        f"Content-Length: {len(body)}\r\n\r\n{body}"
    ).encode()
    assert_envelope(
        exchange(proxy, raw), 400, "idempotency_error", "idempotency_key_invalid", "Idempotency-Key"
    )
    assert not Charge.objects.exists()


def test_a_body_sent_slowly_is_handed_over_whole(proxy, access_log, key):
    """A charge sent in pieces over a few seconds reaches gunicorn once, whole, and is made."""
    body = json.dumps(CHARGE).encode()
    raw = (
        "POST /v1/charges HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {key}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    with connect(proxy) as sock:
        for start in range(0, len(raw), 40):
            sock.sendall(raw[start : start + 40])
            time.sleep(0.2)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    assert data.startswith(b"HTTP/1.1 201 Created"), data
    assert Charge.objects.count() == 1
    wait_for(lambda: access_log.exists() and "POST /v1/charges" in access_log.read_text())
