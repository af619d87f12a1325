"""Clients that go silent in the middle of a request (a phone that lost its network, a socket held
open on purpose), that send it a byte at a time, or that stop reading their answer, through a
real gunicorn with production's settings (config/gunicorn.py, config/gunicorn_worker.py), here
with CLIENT_IDLE_TIMEOUT=1 and CLIENT_REQUEST_TIMEOUT=3: a request is given a thread only once it
has arrived whole, one that does not is answered 408 in the envelope, and everyone else is
served meanwhile."""

import json
import socket
import threading
import time
import urllib.request
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


@pytest.fixture
def gunicorns_own_worker(monkeypatch):
    """The server fixture's gunicorn with gunicorn's own threaded worker, whose threads read a
    request as it arrives (as any other WSGI server may): the application's own guard is then
    what answers a body that stops arriving."""
    monkeypatch.setenv("GUNICORN_CMD_ARGS", "--worker-class gthread")


def test_under_another_worker_the_application_answers_a_body_that_stops_arriving(
    gunicorns_own_worker, server, key
):
    sock = connect(server)
    sock.sendall(
        (
            HEAD.format(key=key) + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n"
        ).encode()
        + b'{"amount": 25'
    )
    status, body = answer(sock)
    assert status == "HTTP/1.1 408 Request Timeout"
    error = json.loads(body)["error"]
    assert error["code"] == "request_timeout"
    assert error["message"] == "The request body stopped arriving before it was complete."
    assert not Charge.objects.exists()
    time.sleep(0.3)
    assert "the body stopped arriving" in server.log.read_text()  # the application's log line


def test_silent_clients_do_not_hold_the_service(server, key):
    """Four silent clients, more than the worker's two threads: two stop within their headers,
    two within their bodies. A request from anyone else is still answered, and each of them is
    answered 408 once silent for CLIENT_IDLE_TIMEOUT."""
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
    # Each is answered and closed, never left hanging.
    statuses = [answer(sock)[0] for sock in silent]
    assert statuses == ["HTTP/1.1 408 Request Timeout"] * 4
    for sock in silent:
        sock.close()
    time.sleep(0.5)
    log = server.log.read_text()
    assert log.count("408 request_timeout") == 4
    assert log.count("silent for 1 s") == 4
    assert "Traceback" not in log


@pytest.mark.postgres
@pytest.mark.books_unchecked  # ledger rows written straight into the table: only their volume
def test_clients_that_stop_reading_their_answer_do_not_hold_the_service(server):
    """Three clients, more than the worker's two threads, ask for a statement of 80,000 rows
    (megabytes, more than the sockets' buffers hold once the client's window is closed) and never
    read it: each thread's write gives up after CLIENT_IDLE_TIMEOUT and the connection is closed,
    so a request from anyone else is still answered. (Two in test mode, one in live mode: an
    account sends at most two statements at once per mode.)"""
    keys = merchant_with_keys()
    start = datetime(2025, 11, 1, tzinfo=UTC)
    LedgerEntry.objects.bulk_create(
        [
            LedgerEntry(
                merchant=keys.merchant,
                livemode=livemode,
                currency="CDF",
                type="charge",
                amount=10000 + n,
                source=f"ch_{n:023d}{livemode:d}",
                created_at=start + timedelta(minutes=n),
            )
            for livemode in (False, True)
            for n in range(80_000)
        ],
        batch_size=10_000,
    )
    key = keys.test_key.plaintext
    stalled = []
    for mode_key in (key, key, keys.live_key.plaintext):
        request = (
            "GET /v1/balance_transactions/export HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {mode_key}\r\n\r\n"
        ).encode()
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


CHARGE = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


def charge_request(key: str, extra: str = "") -> bytes:
    body = json.dumps(CHARGE).encode()
    head = HEAD.format(key=key) + "Content-Type: application/json\r\n" + extra
    return f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body


def drip(sock: socket.socket, data: bytes, every: float, stop: threading.Event) -> None:
    """Send `data` a byte at a time, each within the idle timeout, until sent or stopped."""
    try:
        for byte in data:
            if stop.wait(every):
                return
            sock.send(bytes([byte]))
    except OSError:
        pass  # answered 408 and closed


def test_clients_sending_a_byte_at_a_time_hold_no_thread_and_get_408_when_late(server, key):
    """Four clients, more than the worker's two threads, send a request one byte every 0.4 s
    (never silent for CLIENT_IDLE_TIMEOUT, 1 s): two are still in their headers, two in their
    bodies. With gunicorn's own worker each would hold a thread for as long as it likes, and
    nobody else would be answered; here another client's charge is made at once, and each
    dripping request is answered 408 once CLIENT_REQUEST_TIMEOUT (3 s) has passed."""
    request = charge_request(key)
    in_body = request[: request.index(b"\r\n\r\n") + 6]  # the head, and 2 bytes of the body
    stop = threading.Event()
    clients = []
    for sent_first in (b"", b"", in_body, in_body):
        sock = connect(server)
        sock.sendall(sent_first or request[:5])
        thread = threading.Thread(
            target=drip, args=(sock, request[len(sent_first) or 5 :], 0.4, stop)
        )
        thread.start()
        clients.append((sock, thread))
    time.sleep(1.2)  # each has sent a few more bytes, and would hold a thread
    started = time.monotonic()
    status, body = server(key, "POST", "/v1/charges", CHARGE)
    assert status == 201, body
    assert time.monotonic() - started < 2  # not after the drips' timeout
    try:
        statuses = [answer(sock)[0] for sock, _ in clients]
    finally:
        stop.set()
        for sock, thread in clients:
            thread.join()
            sock.close()
    assert statuses == ["HTTP/1.1 408 Request Timeout"] * 4
    assert Charge.objects.count() == 1  # only the other client's
    time.sleep(0.3)
    log = server.log.read_text()
    assert log.count("not whole after 3 s") == 4
    assert "Traceback" not in log


def test_a_slow_but_steady_request_is_served(server, key):
    """A request in pieces, each within the idle timeout and all within the request timeout, is
    served as if it had come at once."""
    sock = connect(server)
    request = charge_request(key)
    for start in range(0, len(request), 60):
        sock.sendall(request[start : start + 60])
        time.sleep(0.1)
    status, body = answer_one(sock)
    assert status == "HTTP/1.1 201 Created", body
    assert json.loads(body)["status"] == "pending"


def answer_one(sock: socket.socket) -> tuple[str, bytes]:
    """The status line and body of the next answer on a kept-alive connection (framed by its
    Content-Length, or chunked)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    fields = dict(line.lower().split(b": ", 1) for line in lines[1:])
    if fields.get(b"transfer-encoding") == b"chunked":
        while not body.endswith(b"\r\n0\r\n\r\n"):
            body += sock.recv(65536)
        decoded, rest = b"", body
        while (size := int(rest.split(b"\r\n", 1)[0], 16)) > 0:
            chunk = rest.split(b"\r\n", 1)[1]
            decoded, rest = decoded + chunk[:size], chunk[size + 2 :]
        return lines[0].decode(), decoded
    while len(body) < int(fields[b"content-length"]):
        body += sock.recv(65536)
    return lines[0].decode(), body


def test_a_client_expecting_100_continue_is_told_once_and_served(server, key):
    request = charge_request(key, extra="Expect: 100-continue\r\n")
    head, _, body = request.partition(b"\r\n\r\n")
    sock = connect(server)
    sock.sendall(head + b"\r\n\r\n")
    assert sock.recv(100) == b"HTTP/1.1 100 Continue\r\n\r\n"  # before the body is sent
    sock.sendall(body)
    sock.settimeout(10)
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    assert data.startswith(b"HTTP/1.1 201 Created")  # no second 100 Continue
    sock.close()


def test_kept_alive_and_pipelined_requests_are_each_answered(server, key):
    get = f"GET /v1/webhook_endpoint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n\r\n"
    sock = connect(server)
    sock.sendall(get.encode())
    assert answer_one(sock)[0] == "HTTP/1.1 200 OK"
    time.sleep(0.5)  # idle between requests, kept alive
    sock.sendall(charge_request(key))
    assert answer_one(sock)[0] == "HTTP/1.1 201 Created"
    sock.sendall(get.encode() * 2 + charge_request(key))  # three at once
    assert [answer_one(sock)[0] for _ in range(3)] == [
        "HTTP/1.1 200 OK",
        "HTTP/1.1 200 OK",
        "HTTP/1.1 201 Created",
    ]
    sock.close()
    assert Charge.objects.count() == 2


def test_a_head_too_large_or_a_body_too_large_is_refused_without_waiting(server, key):
    sock = connect(server)
    sock.sendall(b"GET /v1/webhook_endpoint HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X: y\r\n" * 11_000)
    status, body = answer(sock)  # the head never ends: refused at 64 KB, before any thread
    assert status == "HTTP/1.1 431 Request Header Fields Too Large"
    assert json.loads(body)["error"]["code"] == "request_invalid"

    sock = connect(server)
    started = time.monotonic()
    sock.sendall(
        (HEAD.format(key=key) + "Content-Type: application/json\r\n"
         f"Content-Length: {2 * 1024 * 1024}\r\n\r\n").encode() + b"{"
    )  # fmt: skip
    status, body = answer_one(sock)  # refused unread: the body is not awaited
    assert status == "HTTP/1.1 413 Request Entity Too Large"
    assert json.loads(body)["error"]["code"] == "request_too_large"
    assert time.monotonic() - started < 2
    sock.close()
    assert not Charge.objects.exists()


def test_a_request_dripping_behind_a_whole_one_holds_no_thread(server, key):
    """Two clients (the worker's two threads) each send a whole request and the first bytes of
    the next in one packet, then the rest a byte at a time: the second request is received like
    any other, not read by a thread, so another client is still answered."""
    get = (
        f"GET /v1/webhook_endpoint HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {key}\r\n\r\n"
    ).encode()
    stop = threading.Event()
    clients = []
    for _ in range(2):
        sock = connect(server)
        sock.sendall(get + get[:20])
        thread = threading.Thread(target=drip, args=(sock, get[20:], 0.4, stop))
        thread.start()
        clients.append((sock, thread))
    try:
        assert [answer_one(sock)[0] for sock, _ in clients] == ["HTTP/1.1 200 OK"] * 2
        time.sleep(0.5)
        started = time.monotonic()
        assert server(key)[0] == 200
        assert time.monotonic() - started < 2
        assert [answer(sock)[0] for sock, _ in clients] == ["HTTP/1.1 408 Request Timeout"] * 2
    finally:
        stop.set()
        for sock, thread in clients:
            thread.join()
            sock.close()


class Reader:
    """Answers read off one connection in order, at the pace the test chooses."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.data = sock, b""

    def read(self, size: int) -> bool:
        """Up to `size` more bytes; False once the server has closed the connection."""
        chunk = self.sock.recv(size)
        self.data += chunk
        return bool(chunk)

    def answer(self) -> tuple[str, bytes]:
        """The next whole answer (framed by its Content-Length)."""
        while b"\r\n\r\n" not in self.data:
            assert self.read(65536), "closed before the answer's head"
        head, _, rest = self.data.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        fields = dict(line.lower().split(b": ", 1) for line in lines[1:])
        length = int(fields[b"content-length"])
        while len(rest) < length:
            assert self.read(65536), "closed in the middle of an answer"
            rest = self.data.partition(b"\r\n\r\n")[2]
        self.data = rest[length:]
        return lines[0].decode(), rest[:length]


def slow_reader(server, requests: bytes) -> Reader:
    """A client with a small window that sends `requests` at once and reads nothing yet."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    address = urlsplit(server.base)
    sock.connect((address.hostname, address.port))
    sock.settimeout(20)
    sock.sendall(requests)
    return Reader(sock)


DOCUMENT = b"GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"  # 350 KB, no key needed


def test_clients_reading_their_answers_slowly_hold_no_thread(server, key):
    """Four clients, twice the worker's threads, each ask for the OpenAPI document eight times in
    one go (pipelined: 2.8 MB, more than their sockets hold) and read it a little at a time,
    each read within CLIENT_IDLE_TIMEOUT: anyone else is answered at once meanwhile (a thread
    used to wait on each of them for as long as they kept reading), and each of them gets its
    eight documents whole and in order, on the one kept-alive connection."""
    readers = [slow_reader(server, DOCUMENT * 8) for _ in range(4)]
    stop = threading.Event()

    def trickle(reader: Reader) -> None:
        while not stop.wait(0.2) and reader.read(2048):
            pass

    trickles = [threading.Thread(target=trickle, args=(reader,)) for reader in readers]
    for thread in trickles:
        thread.start()
    time.sleep(1.5)  # every answer has filled its socket's buffers, and the readers read on
    for _ in range(3):
        started = time.monotonic()
        status, body = server(key, "POST", "/v1/charges", CHARGE)
        assert status == 201, body
        assert time.monotonic() - started < 1
    stop.set()
    for thread in trickles:
        thread.join()
    reference = urllib_get(server.base + "/v1/openapi.json")
    assert len(reference) > 300_000
    for reader in readers:
        answers = [reader.answer() for _ in range(8)]
        assert answers == [("HTTP/1.1 200 OK", reference)] * 8
        reader.sock.sendall(DOCUMENT)  # still kept alive
        assert reader.answer() == ("HTTP/1.1 200 OK", reference)
        reader.sock.close()
    time.sleep(0.3)
    assert "Traceback" not in server.log.read_text()


def test_an_answer_left_unread_is_dropped_after_the_idle_timeout(server, key):
    """A client that stops reading its answers part way holds no thread and, once it has read
    nothing for CLIENT_IDLE_TIMEOUT (1 s here), its connection is closed and the rest dropped;
    one reading slowly that asked to close after its answer gets all of it, then the end of
    the connection."""
    stalled = slow_reader(server, DOCUMENT * 64)  # 23 MB, far more than its sockets hold
    closing = slow_reader(
        server, b"GET /v1/openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    done = threading.Event()

    def trickle() -> None:  # within the idle timeout, until the server closes
        while closing.read(8192):
            time.sleep(0.1)
        done.set()

    thread = threading.Thread(target=trickle)
    thread.start()
    time.sleep(0.5)
    status, body = server(key, "GET", "/v1/webhook_endpoint")
    assert status == 200, body
    # Dropped once its buffers are full and it has read nothing for the idle timeout: seconds on a
    # loaded machine, which fills them slowly.
    deadline = time.monotonic() + 30
    while "answer not read" not in server.log.read_text():
        assert time.monotonic() < deadline, "the stalled client was never dropped"
        time.sleep(0.2)
    try:
        while stalled.read(1 << 20):
            pass
    except ConnectionResetError:
        pass
    assert 0 < len(stalled.data) < 64 * 300_000  # closed part way
    assert done.wait(30)
    thread.join()
    status, body = closing.answer()
    assert status == "HTTP/1.1 200 OK"
    assert json.loads(body)["openapi"].startswith("3.")
    assert closing.data == b""  # nothing after it: the connection ended there
    time.sleep(0.3)
    log = server.log.read_text()
    assert log.count("answer not read for 1 s: connection closed") == 1
    assert "Traceback" not in log


def urllib_get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read()
