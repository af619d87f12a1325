"""gunicorn's threaded worker, giving a connection a thread only once its whole request is here.

gunicorn's gthread worker hands a connection to one of its threads as soon as its first bytes
arrive, and the thread then reads the rest of the request with blocking reads. A client that sends
its request a byte at a time, each byte within CLIENT_IDLE_TIMEOUT, holds that thread for hours
(8 KB of headers at one byte every 10 s is a day), and a handful of such clients (as many as the
service has threads: 8) stop it answering anyone. In this worker a thread takes what the
connection holds without waiting, which is nearly always the whole request; a request that is not
whole goes back to the worker's event loop, which receives the rest (head and body) as nginx does
in front of an application, and hands it to a thread once whole. A client that is slow, or slow on
purpose, costs a buffer and a place among the worker's connections, never a thread. A request
not whole CLIENT_REQUEST_TIMEOUT seconds after it was first awaited, or silent for
CLIENT_IDLE_TIMEOUT seconds, is answered 408 `request_timeout` in the error envelope, and the
connection half-closed and drained for LINGER seconds (closed with unread bytes, it would be
reset, and the client could lose the answer).

A request goes on to gunicorn's parser before it is whole only where nothing more is read from
the client: a body announced larger than MAX_REQUEST_BODY (the application refuses it unread,
413), more of a chunked body than the application reads, a request that cannot be framed
(gunicorn's parser refuses it at once). A head past HEAD_LIMIT is refused here (431). A client
asking `Expect: 100-continue` is told to continue from here, once.
TLS (certfile) and HTTP/2 connections keep gunicorn's own way: the service runs behind a TLS
proxy and speaks HTTP/1.1.

New connections are shared fairly among the workers (see "Sharing new connections" below): every
worker listens on the same socket, and without it the first worker to wake took most of a burst
of connections (a proxy opening its kept-alive upstream connections, a load generator), so that
one process, on one core, served what four were started for.
"""

import ctypes
import io
import multiprocessing
import os
import socket
import time
from functools import partial
from selectors import EVENT_READ

from gunicorn.http2 import negotiation
from gunicorn.workers.gthread import ThreadWorker

CLIENT_IDLE_TIMEOUT = float(os.environ.get("CLIENT_IDLE_TIMEOUT", "15"))
CLIENT_REQUEST_TIMEOUT = float(os.environ.get("CLIENT_REQUEST_TIMEOUT", "60"))
HEAD_LIMIT = 64 * 1024  # request line and header fields: far above any real client's
RECEIVE_SIZE = 64 * 1024
# After a refusal the connection is half-closed and what the client still sends is read and
# dropped for up to LINGER seconds: closed with unread bytes, the socket would send a reset, and
# the client's system could drop the answer before the client reads it.
LINGER = 2.0

CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"


def _max_body() -> int:
    from django.conf import settings

    return settings.MAX_REQUEST_BODY


WHOLE = "whole"  # Incoming.take(): a thread may read the request now
GONE = "gone"  # the client closed its side, or its socket failed, before its request was whole


class Incoming:
    """What has arrived of one request. `take()` says when a thread should read it: None while
    more is awaited; WHOLE once it is whole, or once what a thread would still read is bounded
    (see the module's doc); or (status, reason, message) for a request refused here."""

    def __init__(self, now: float) -> None:
        self.data = bytearray()
        self.started = now
        self.heard = now
        self.head_end: int | None = None  # where the body starts
        self.body_end: int | None = None  # where the request ends (a Content-Length body)
        self.chunk_at = 0  # the next chunk's size line (a chunked body)
        self.expects_continue = False
        self.continued = False
        self.verdict = None  # what take() said last
        self.answered = False  # refused or timed out here, its answer sent

    def deadline(self) -> float:
        return min(self.started + CLIENT_REQUEST_TIMEOUT, self.heard + CLIENT_IDLE_TIMEOUT)

    def take(self):
        if self.head_end is None:
            end = self.data.find(b"\r\n\r\n")
            if end < 0:
                if len(self.data) > HEAD_LIMIT:
                    return (431, "Request Header Fields Too Large", TOO_LARGE_HEAD)
                return None
            self.head_end = end + 4
            if self._frame(bytes(self.data[:end])):
                return WHOLE
        if self.body_end is not None:
            return WHOLE if len(self.data) >= self.body_end else None
        return self._chunks()

    def _frame(self, head: bytes) -> bool:
        """Read the head's framing; True when a thread should take the request now."""
        lines = head.split(b"\r\n")
        fields: dict[bytes, list[bytes]] = {}
        for line in lines[1:]:
            name, colon, value = line.partition(b":")
            if not colon:
                return True  # malformed: gunicorn's parser refuses it
            fields.setdefault(name.strip().lower(), []).append(value.strip())
        lengths = fields.get(b"content-length", [])
        codings = fields.get(b"transfer-encoding", [])
        if codings:
            if lengths or b",".join(codings).split(b",")[-1].strip().lower() != b"chunked":
                return True  # refused by gunicorn's parser (or not ours to frame)
            self.chunk_at = self.head_end
        elif lengths:
            if len(lengths) > 1 or not lengths[0].isdigit():
                return True
            size = int(lengths[0])
            if size > _max_body():
                return True  # refused unread (413)
            self.body_end = self.head_end + size
        else:
            self.body_end = self.head_end  # no body
        version = lines[0].rsplit(b" ", 1)[-1]
        expect = [value.lower() for value in fields.get(b"expect", [])]
        self.expects_continue = version == b"HTTP/1.1" and b"100-continue" in expect
        return False

    def _chunks(self):
        """Walk the chunks that have arrived: WHOLE once the last chunk and its trailer section
        are here, or once more body has arrived than the application reads (it refuses it:
        413), or the framing is one gunicorn's parser refuses."""
        data = self.data
        if len(data) - self.head_end > _max_body() + 1024:
            return WHOLE
        while True:
            line_end = data.find(b"\r\n", self.chunk_at)
            if line_end < 0:
                if len(data) - self.chunk_at > 1024:
                    return (400, "Bad Request", BAD_CHUNK)
                return None
            size_text = bytes(data[self.chunk_at : line_end]).split(b";")[0].strip()
            try:
                size = int(size_text, 16)
            except ValueError:
                return WHOLE  # gunicorn's parser refuses it, with nothing more to read
            if size == 0:  # the trailer section ends with an empty line
                return WHOLE if data.find(b"\r\n\r\n", line_end) >= 0 else None
            if len(data) < line_end + 2 + size + 2:
                return None
            self.chunk_at = line_end + 2 + size + 2


TOO_LARGE_HEAD = f"the request line and header fields exceed {HEAD_LIMIT} bytes"
BAD_CHUNK = "a chunk size line longer than 1024 bytes"


RECEIVE = object()  # handle(): the request is not whole yet; the event loop receives the rest


# --- Sharing new connections among the workers --------------------------------------------------
#
# The workers share one listening socket, and the kernel wakes all of them for each new
# connection; whichever is quickest accepts it. Under a burst (a proxy or a load generator opening
# its kept-alive connections at once) that was often the same worker: 16 connections opened
# together landed 16/0/0/0 or 12/4/0/0 on four workers as often as not, and a kept-alive
# connection stays with its worker, so one process (one core, for Python) served them all.
# Each worker now writes how many connections it holds in a table the workers share; one that
# holds more than another live worker lets the connection go for ACCEPT_YIELD seconds, for a less
# loaded worker (woken for the same connection) to take, and takes it itself if none did. So a
# connection waits at most ACCEPT_YIELD longer, whatever the table says.

ACCEPT_SLOTS = 64  # workers balanced at most (more run unbalanced, as before)
ACCEPT_YIELD = 0.02
_loads = None  # [pid, connections] per slot, in memory the master shares with its workers


def _shared_loads():
    """The table, made by the master before its first worker is forked."""
    global _loads
    if _loads is None:
        _loads = multiprocessing.RawArray(ctypes.c_long, 2 * ACCEPT_SLOTS)
    return _loads


def assign_load_slot(server, worker) -> None:
    """gunicorn's pre_fork hook (config/gunicorn.py), in the master: the new worker's row of the
    table, one that no live worker holds (a dead worker's is given again, emptied)."""
    loads = _shared_loads()
    taken = {getattr(other, "load_slot", None) for other in server.WORKERS.values()}
    worker.load_slot = None
    for slot in range(ACCEPT_SLOTS):
        if slot not in taken:
            loads[2 * slot] = loads[2 * slot + 1] = 0
            worker.load_slot = slot
            return


def more_loaded_than_another(loads: list[int], slot: int, mine: int, alive) -> bool:
    """Whether `mine` (the connections of the worker at `slot`) is more than some other live
    worker of `loads` holds ([pid, connections] per slot, pid 0 where there is none)."""
    for other in range(len(loads) // 2):
        pid, held = loads[2 * other], loads[2 * other + 1]
        if other != slot and pid > 0 and held < mine and alive(pid):
            return True
    return False


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        pass
    return True


class WholeRequestWorker(ThreadWorker):
    """gunicorn's gthread worker, whose threads read only requests that have arrived whole.

    A thread first takes what the connection holds without waiting (nearly always the whole
    request: the common case costs what it did). If the request is not whole, the thread gives
    the connection back at once, and the event loop receives the rest before a thread takes it
    again."""

    def init_process(self) -> None:
        self.receiving: dict = {}  # connection -> Incoming
        self.lingering: dict = {}  # connection -> when it is closed at the latest
        # Plain HTTP/1.x for everyone (production's settings): no connection to ask about.
        self.all_plain = not self.cfg.is_ssl and self.cfg.http2_cleartext in (None, "", "off")
        # Balanced among the workers when they share a listening socket (with --reuse-port each
        # has its own, which the kernel balances, and nobody else could take what it lets go).
        slot = getattr(self, "load_slot", None)
        self.loads = _loads if slot is not None and not self.cfg.reuse_port else None
        self.yielding_until = 0.0  # letting new connections go to less loaded workers until then
        self.yielded = False  # the next connection is taken, whatever the table says
        super().init_process()  # loads the application, then runs the event loop

    def run(self) -> None:
        if self.loads is not None:  # in the table once it accepts: the application is loaded
            self.loads[2 * self.load_slot] = os.getpid()
        super().run()

    # --- Sharing new connections (see the module's section) --------------------------------------

    def accept(self, listener) -> None:
        if self.loads is None:
            return super().accept(listener)
        if not self.yielded and more_loaded_than_another(
            self.loads[:], self.load_slot, self.nr_conns, _alive
        ):
            self.yielding_until = time.monotonic() + ACCEPT_YIELD
            super().set_accept_enabled(False)
            return
        self.yielded = False
        count = 2 * self.load_slot + 1
        # Said before it is taken, so that the workers woken with this one see it.
        self.loads[count] = self.nr_conns + 1
        try:
            super().accept(listener)
        finally:
            self.loads[count] = self.nr_conns

    def set_accept_enabled(self, enabled: bool) -> None:
        if enabled and self.yielding_until:
            return  # listening again once ACCEPT_YIELD has passed
        super().set_accept_enabled(enabled)

    def wait_for_and_dispatch_events(self, timeout: float) -> None:
        """gunicorn's event loop, waking when a yield is over; the table kept up to date."""
        if self.loads is not None:
            row = 2 * self.load_slot
            if not self.alive:  # stopping: never the one to leave a connection to
                self.loads[row] = 0
            self.loads[row + 1] = self.nr_conns
        if self.yielding_until:
            left = self.yielding_until - time.monotonic()
            if left > 0:
                timeout = min(timeout, left)
            else:
                self.yielding_until = 0.0
                if self.alive and self.nr_conns < self.worker_connections:
                    self.yielded = True  # still waiting: nobody less loaded took it
                    super().set_accept_enabled(True)
        try:
            super().wait_for_and_dispatch_events(timeout)
        finally:
            self.yielded = False

    def _own_framing(self, conn) -> bool:
        """Whether this worker receives the connection's requests itself (plain HTTP/1.x)."""
        return self.all_plain or not (
            self.cfg.is_ssl
            or negotiation.prior_knowledge_allowed(self.cfg, conn.client)
            or negotiation.upgrade_allowed(self.cfg, conn.client)
            or getattr(conn, "is_http2", False)
        )

    def handle(self, conn):
        """In a thread: the request's bytes, once whole, go to gunicorn's parser before anything
        is read from the socket, which holds nothing more of it; a request not whole goes back
        to the event loop (RECEIVE)."""
        received = conn.__dict__.pop("received", None)
        if received is None and self._own_framing(conn):
            incoming = Incoming(time.monotonic())
            conn.sock.setblocking(False)
            if conn.parser is not None:  # what the last request's thread read beyond it
                unreader = conn.parser.unreader
                ahead = unreader.buf.getvalue()
                if ahead:
                    unreader.buf = io.BytesIO()
                    incoming.data += ahead
                    incoming.verdict = incoming.take()
            if incoming.verdict is None:
                self._receive(conn, incoming)
            if incoming.verdict != WHOLE:
                conn.incoming = incoming
                return RECEIVE
            received = bytes(incoming.data)
            conn.continued = incoming.continued
        if received is not None:
            conn.sock.setblocking(True)
            conn.init()
            conn.parser.unreader.unread(received)  # into an empty buffer (taken above)
            conn.data_ready = True  # gunicorn's thread waits for no first byte
        return super().handle(conn)

    def finish_request(self, conn, fs) -> None:
        """In the event loop, once a thread is done with a connection: one whose request is not
        whole is received here."""
        if fs.cancelled() or fs.exception() is not None or fs.result() is not RECEIVE:
            return super().finish_request(conn, fs)
        incoming = conn.__dict__.pop("incoming")
        self.receiving[conn] = incoming
        if incoming.verdict is None and self.alive:
            self.poller.register(conn.sock, EVENT_READ, partial(self._readable, conn))
        else:  # refused, the client gone, or the worker stopping
            self._settle(conn, incoming)

    def _readable(self, conn, sock) -> None:
        incoming = self.receiving.get(conn)
        if incoming is not None and self._receive(conn, incoming):
            self.poller.unregister(sock)
            self._settle(conn, incoming)

    def _receive(self, conn, incoming: Incoming) -> bool:
        """Read what the (non-blocking) socket holds; True once the request is settled: whole,
        refused, or the client gone (incoming.verdict says which: WHOLE, a refusal, GONE)."""
        try:
            while True:
                chunk = conn.sock.recv(RECEIVE_SIZE)
                if not chunk:  # the client closed its side
                    incoming.verdict = GONE
                    return True
                incoming.data += chunk
                incoming.heard = time.monotonic()
                incoming.verdict = incoming.take()
                if incoming.verdict is not None:
                    return True
                if incoming.expects_continue and not incoming.continued:
                    incoming.continued = True
                    conn.sock.send(CONTINUE)  # 25 bytes: never partial
                if len(chunk) < RECEIVE_SIZE:
                    return False
        except BlockingIOError:
            return False
        except OSError:
            incoming.verdict = GONE
            return True

    def _settle(self, conn, incoming: Incoming) -> None:
        """In the event loop: a whole request to a thread; a refused one answered; a client
        gone (or not whole while the worker stops) closed."""
        del self.receiving[conn]
        if incoming.verdict == WHOLE:
            conn.received = bytes(incoming.data)
            conn.continued = incoming.continued
            super().enqueue_req(conn)
            return
        if incoming.verdict not in (None, GONE):
            incoming.answered = True
            status, reason, message = incoming.verdict
            self._answer(conn, status, reason, "request_invalid", f"{reason}: {message}")
        if incoming.answered:
            self._linger(conn)
        else:
            self._close(conn)

    def _close(self, conn) -> None:
        self.nr_conns -= 1
        conn.close()

    def _linger(self, conn) -> None:
        """Half-close an answered connection and drop what the client still sends, until it
        closes its side or LINGER has passed."""
        try:
            conn.sock.shutdown(socket.SHUT_WR)
        except OSError:
            return self._close(conn)
        self.lingering[conn] = time.monotonic() + LINGER
        self.poller.register(conn.sock, EVENT_READ, partial(self._lingering_readable, conn))

    def _lingering_readable(self, conn, sock) -> None:
        try:
            while chunk := sock.recv(RECEIVE_SIZE):
                if len(chunk) < RECEIVE_SIZE:
                    return
        except BlockingIOError:
            return
        except OSError:
            pass
        self.poller.unregister(sock)
        del self.lingering[conn]
        self._close(conn)

    def handle_request(self, req, conn):
        if getattr(conn, "continued", False):  # told to continue already: not a second time
            req._expected_100_continue = False
            conn.continued = False
        return super().handle_request(req, conn)

    def murder_pending(self) -> None:
        """Requests that did not arrive in time are answered 408 and their connections closed
        (a connection that never began a request is closed quietly)."""
        super().murder_pending()
        now = time.monotonic()
        for conn in [c for c, until in self.lingering.items() if until <= now]:
            del self.lingering[conn]
            self.poller.unregister(conn.sock)
            self._close(conn)
        for conn in [c for c, incoming in self.receiving.items() if incoming.deadline() <= now]:
            incoming = self.receiving[conn]
            self.poller.unregister(conn.sock)
            if incoming.data:
                incoming.answered = True
                rid = self._answer(
                    conn, 408, "Request Timeout", "request_timeout",
                    "The request did not arrive in time.",
                )  # fmt: skip
                whole_by = incoming.started + CLIENT_REQUEST_TIMEOUT
                self.log.warning(
                    "408 request_timeout (request_id=%s): %s, %d bytes received",
                    rid,
                    f"not whole after {CLIENT_REQUEST_TIMEOUT:g} s"
                    if now >= whole_by
                    else f"silent for {CLIENT_IDLE_TIMEOUT:g} s",
                    len(incoming.data),
                )
            incoming.verdict = GONE
            self._settle(conn, incoming)

    @staticmethod
    def _answer(conn, status: int, reason: str, code: str, message: str) -> str:
        """Answer in the error envelope and say no more; the answer's request id."""
        from payments.api.errors import raw_http_answer

        rid, answer = raw_http_answer(
            status, reason, type="invalid_request_error", code=code, message=message
        )
        try:
            conn.sock.send(answer)
        except OSError:
            pass  # the client is gone or not reading: nothing more is owed to it
        return rid
