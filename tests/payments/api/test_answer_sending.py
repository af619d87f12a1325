"""config/gunicorn_worker.Outgoing, the client's socket as an answer is written to it: what the
socket takes at once is sent, the rest waits (for the event loop) in order, within a bound per
answer and per worker. Over a real socket pair with a small buffer and a client that reads only
when told to."""

import io
import socket
import threading

import pytest

from config import gunicorn_worker
from config.gunicorn_worker import Budget, Outgoing


@pytest.fixture
def pair():
    server, client = socket.socketpair()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    server.settimeout(None)
    yield server, client
    server.close()
    client.close()


def read_all(client: socket.socket, size: int) -> bytes:
    client.settimeout(10)
    data = b""
    while len(data) < size:
        data += client.recv(65536)
    return data


def drain(outgoing: Outgoing, client: socket.socket, size: int) -> bytes:
    """The event loop's part: send what waits as the client reads it."""
    outgoing.sock.setblocking(False)
    client.settimeout(10)
    data = b""
    while not outgoing.send_some():
        data += client.recv(65536)
    while len(data) < size:
        data += client.recv(65536)
    return data


def test_what_the_socket_does_not_take_waits_in_order_and_nothing_is_lost(pair):
    server, client = pair
    budget = Budget(1 << 20)
    outgoing = Outgoing(server, budget)
    head, body, tail = b"H" * 100, bytes(range(256)) * 1000, b"T" * 10
    outgoing.sendall(head)
    outgoing.sendall(body)  # 256 KB: far more than the socket holds; the call does not wait
    assert outgoing.waiting and 0 < outgoing.size < len(body)
    outgoing.sendall(tail)  # after what waits, never before it
    assert outgoing.waiting[-1].tobytes() == tail
    assert budget.held == outgoing.size
    assert drain(outgoing, client, len(head + body + tail)) == head + body + tail
    assert outgoing.size == 0 and budget.held == 0


def test_an_answer_past_send_ahead_is_written_by_its_thread(pair, monkeypatch):
    monkeypatch.setattr(gunicorn_worker, "SEND_AHEAD", 50_000)
    server, client = pair
    budget = Budget(1 << 20)
    outgoing = Outgoing(server, budget)
    chunks = [bytes([n]) * 20_000 for n in range(10)]  # a streamed answer of 200 KB
    received = []
    reader = threading.Thread(target=lambda: received.append(read_all(client, 200_000)))
    reader.start()
    for chunk in chunks:
        outgoing.sendall(chunk)
        assert outgoing.size <= 50_000  # never more than SEND_AHEAD waits
    outgoing.sock.setblocking(False)  # the end of it, for the event loop
    while not outgoing.send_some():
        pass
    reader.join(10)
    assert received == [b"".join(chunks)]
    assert budget.held == 0


def test_a_worker_out_of_budget_writes_as_before(pair):
    server, client = pair
    budget = Budget(10_000)
    assert budget.hold(9_000)  # another connection's waiting answer
    outgoing = Outgoing(server, budget)
    received = []
    reader = threading.Thread(target=lambda: received.append(read_all(client, 100_000)))
    reader.start()
    outgoing.sendall(b"x" * 100_000)  # the budget cannot keep the rest: written here, blocking
    reader.join(10)
    assert received == [b"x" * 100_000]
    assert not outgoing.waiting and budget.held == 9_000
    budget.release(9_000)


def test_a_file_goes_after_what_waits(pair):
    server, client = pair
    outgoing = Outgoing(server, Budget(1 << 20))
    outgoing.sendall(b"h" * 50_000)  # headers that did not all fit
    content = bytes(range(256)) * 400
    outgoing.sendfile(io.BytesIO(b"skip" + content + b"after"), offset=4, count=len(content))
    assert drain(outgoing, client, 50_000 + len(content)) == b"h" * 50_000 + content


def test_a_dropped_answer_gives_its_bytes_back(pair):
    server, _ = pair
    budget = Budget(1 << 20)
    outgoing = Outgoing(server, budget)
    outgoing.sendall(b"z" * 100_000)
    assert budget.held > 0
    outgoing.drop()
    assert budget.held == 0 and not outgoing.waiting
    # anything else is the socket's own
    assert outgoing.fileno() == server.fileno()
