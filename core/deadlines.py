"""A deadline for a whole HTTP call made with requests, whatever thread makes it.

requests' timeouts bound each wait (connecting, then each read), not their sum: a server that
sends its answer one byte at a time, each byte within the timeout, holds the caller for hours. A
merchant's webhook receiver doing so would hold a delivering worker, and everyone's deliveries
behind it; an operator's gateway doing so, the workers that send prompts and check statuses.
Past the deadline a watchdog thread shuts the connection's socket down, which ends the wait
wherever it is (plain or TLS, in any thread), and the call raises DeadlinePassed.
"""

import os
import socket
import threading
import time
from contextlib import contextmanager

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool


class DeadlinePassed(Exception):
    """The call was cut at its deadline: it said nothing, as a timeout says nothing."""


class _Watch:
    """One call's deadline, and the connection it is made on once it has one."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.connection = None  # the urllib3 connection the call is made on, once it has one
        self.passed = False


class _Watchdog:
    """A daemon thread per process that cuts the connections of calls past their deadline. It
    sleeps until the earliest deadline and is woken only for an earlier one, so a steady stream
    of calls (deadlines in the order they start) costs it no wake-up each."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.watched: set[_Watch] = set()
        self.wake_at = float("inf")  # when the thread wakes next on its own
        self.thread: threading.Thread | None = None

    def watch(self, watch: _Watch) -> None:
        with self.cond:
            if self.thread is None:
                self.thread = threading.Thread(target=self._run, name="http-deadlines", daemon=True)
                self.thread.start()
            self.watched.add(watch)
            if watch.deadline < self.wake_at:
                self.wake_at = watch.deadline
                self.cond.notify()

    def unwatch(self, watch: _Watch) -> None:
        with self.cond:  # no cut can happen once this returns
            self.watched.discard(watch)

    def _run(self) -> None:
        with self.cond:
            while True:
                now = time.monotonic()
                for watch in [w for w in self.watched if w.deadline <= now]:
                    sock = getattr(watch.connection, "sock", None)
                    if sock is None:  # still connecting (bounded by its own timeout)
                        watch.deadline = now + 0.05
                        continue
                    watch.passed = True
                    self.watched.discard(watch)
                    try:  # the plain socket's shutdown, under TLS too: the reader sees EOF
                        socket.socket.shutdown(sock, socket.SHUT_RDWR)
                    except OSError:
                        pass
                self.wake_at = min((w.deadline for w in self.watched), default=float("inf"))
                self.cond.wait(None if not self.watched else max(0.0, self.wake_at - now))


_watchdog = _Watchdog()
# A forked child (a Celery worker process) starts with no thread and no lock held by one.
os.register_at_fork(after_in_child=_watchdog.__init__)
_watching = threading.local()  # the call this thread is making


@contextmanager
def deadline(seconds: float):
    """Raise DeadlinePassed when the block's call (made through a WatchedAdapter) is cut at its
    deadline, `seconds` from now."""
    watch = _Watch(time.monotonic() + seconds)
    _watching.watch = watch
    _watchdog.watch(watch)
    try:
        yield watch
    except Exception:
        if watch.passed:
            raise DeadlinePassed() from None
        raise
    finally:
        _watchdog.unwatch(watch)
        _watching.watch = None
    if watch.passed:  # cut just as the answer ended: the connection is not reusable
        raise DeadlinePassed()


class _Watched:
    """A urllib3 connection that tells the call being made on this thread it carries it."""

    def request(self, *args, **kwargs):
        watch = getattr(_watching, "watch", None)
        if watch is not None:
            watch.connection = self
        return super().request(*args, **kwargs)


class _WatchedConnection(_Watched, HTTPConnection):
    pass


class _WatchedTlsConnection(_Watched, HTTPSConnection):
    pass


class _Pool(HTTPConnectionPool):
    ConnectionCls = _WatchedConnection


class _TlsPool(HTTPSConnectionPool):
    ConnectionCls = _WatchedTlsConnection


class WatchedAdapter(HTTPAdapter):
    """requests' adapter, on connections a deadline can cut."""

    def init_poolmanager(self, *args, **kwargs):
        super().init_poolmanager(*args, **kwargs)
        self.poolmanager.pool_classes_by_scheme = {"http": _Pool, "https": _TlsPool}
