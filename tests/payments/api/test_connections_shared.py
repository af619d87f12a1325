"""New connections are shared fairly among gunicorn's workers (config/gunicorn_worker.py): a
burst of kept-alive connections (a proxy opening its upstream connections, a load generator) is
not taken by the first worker to wake, which would serve them all on one core."""

import os
import socket
import threading
import time
from urllib.parse import urlsplit

import pytest

from config.gunicorn_worker import more_loaded_than_another

WORKERS = 4
CONNECTIONS = 16


@pytest.fixture
def server_workers() -> int:
    return WORKERS


def worker_pids(master: int, count: int) -> list[int]:
    """The master's `count` worker processes, once each listens: its event loop watches the
    listening socket (a worker loads the application first, and a slow machine may take seconds)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        children = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as stat:
                        fields = stat.read().rsplit(")", 1)[1].split()
                except OSError:
                    continue
                if int(fields[1]) == master:
                    children.append(int(entry))
        if len(children) >= count and all(map(_listening, children)):
            return children
        time.sleep(0.2)
    raise AssertionError(f"{count} workers did not start listening")


def _listening(pid: int) -> bool:
    """Whether one of the process's epoll instances watches a listening TCP socket it holds."""
    listeners = _inodes(state="0A")  # LISTEN
    held, polls = set(), []
    try:
        for fd in os.listdir(f"/proc/{pid}/fd"):
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
            if target.startswith("socket:[") and target[8:-1] in listeners:
                held.add(fd)
            elif target == "anon_inode:[eventpoll]":
                polls.append(fd)
        for fd in polls:
            with open(f"/proc/{pid}/fdinfo/{fd}") as info:
                watched = {line.split()[1] for line in info if line.startswith("tfd:")}
            if watched & held:
                return True
    except OSError:
        pass
    return False


def _inodes(*, state: str, port: int | None = None) -> set[str]:
    """Inodes of the TCP sockets in `state` (/proc/net/tcp's hex code), on local `port` if given."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as rows:
            for row in list(rows)[1:]:
                fields = row.split()
                local_port = int(fields[1].rsplit(":", 1)[1], 16)
                if fields[3] == state and (port is None or local_port == port):
                    found.add(fields[9])
    return found


def established_by_pid(port: int, pids: list[int]) -> dict[int, int]:
    """How many established TCP connections on local `port` each of `pids` holds (/proc)."""
    inodes = _inodes(state="01", port=port)  # ESTABLISHED
    held = {}
    for pid in pids:
        count = 0
        for fd in os.listdir(f"/proc/{pid}/fd"):
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            if target.startswith("socket:[") and target[8:-1] in inodes:
                count += 1
        held[pid] = count
    return held


def burst(address) -> list[socket.socket]:
    """CONNECTIONS connections opened at once, each asking one request and kept open."""
    request = f"GET /v1/nothing-here HTTP/1.1\r\nHost: {address.hostname}\r\n\r\n".encode()
    sockets = [socket.socket() for _ in range(CONNECTIONS)]
    start = threading.Barrier(CONNECTIONS)

    def open_and_ask(sock):
        start.wait()
        sock.settimeout(10)
        sock.connect((address.hostname, address.port))
        sock.sendall(request)
        assert sock.recv(65536).startswith(b"HTTP/1.1 404")

    threads = [threading.Thread(target=open_and_ask, args=(sock,)) for sock in sockets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sockets


def test_a_burst_of_kept_alive_connections_is_shared_among_the_workers(server):
    address = urlsplit(server.base)
    pids = worker_pids(server.pid, WORKERS)
    # A first burst, closed again: a worker's first requests (translations, URL patterns loaded)
    # keep it from accepting for a moment, and the others then take what it would have.
    for sock in burst(address):
        sock.close()
    deadline = time.monotonic() + 10
    while any(established_by_pid(address.port, pids).values()):
        assert time.monotonic() < deadline, "the first burst's connections were not closed"
        time.sleep(0.05)
    sockets = burst(address)
    held = established_by_pid(address.port, pids)
    for sock in sockets:
        sock.close()
    assert sum(held.values()) == CONNECTIONS
    # Fair shares are 4 each; a worker woken late for a connection may leave it to another.
    assert max(held.values()) - min(held.values()) <= 2, held


def test_a_worker_holding_more_than_another_live_worker_lets_a_connection_go():
    alive = {101, 102, 103}.__contains__
    loads = [101, 3, 102, 2, 103, 2, 0, 0]  # [pid, connections] per slot; slot 3 is empty
    assert more_loaded_than_another(loads, 0, 3, alive)
    assert not more_loaded_than_another(loads, 1, 2, alive)  # a tie takes it
    # A dead worker's row, or an empty one, is nobody to leave a connection to.
    assert not more_loaded_than_another([101, 3, 104, 0, 0, 0], 0, 3, alive)
    assert not more_loaded_than_another([101, 1], 0, 1, alive)  # the only worker
