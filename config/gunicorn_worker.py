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
The answer goes the same way in reverse: a thread writes what the client's socket takes at once
(nearly always all of it) and leaves the rest to the event loop, which sends it as the client reads
(see "Sending an answer" below). A client slow to read its answer, or reading it slowly on
purpose, costs a buffer, not a thread; without it a client asking for a document larger than
its socket's buffers (the 350 KB OpenAPI document, a page of 100 objects, several requests
pipelined on one connection) and reading a few bytes within every CLIENT_IDLE_TIMEOUT held a
thread for as long as it liked, and as many such clients as the service has threads stopped it
answering anyone.
TLS (certfile) and HTTP/2 connections keep gunicorn's own way: the service runs behind a TLS
proxy and speaks HTTP/1.1.

New connections are shared fairly among the workers (see "Sharing new connections" below): every
worker listens on the same socket, and without it the first worker to wake took most of a burst
of connections (a proxy opening its kept-alive upstream connections, a load generator), so that
one process, on one core, served what four were started for.
"""

import ctypes
import fcntl
import io
import multiprocessing
import os
import socket
import struct
import termios
import threading
import time
from concurrent.futures import Future
from functools import partial
from selectors import EVENT_READ, EVENT_WRITE

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
SEND = object()  # handle(): the answer is not all sent yet; the event loop sends the rest


# --- Sending an answer ---------------------------------------------------------------------------
#
# A thread writes an answer through Outgoing instead of the socket: what the socket takes at once
# is sent, the rest is kept (the bytes the application made, not a copy) and the thread moves on;
# the event loop sends it as the client reads, and closes the connection once the client has read
# nothing for CLIENT_IDLE_TIMEOUT, as it does with a request that stops arriving. Bounded twice:
# an answer keeps at most SEND_AHEAD bytes waiting (a longer one, a streamed statement, is written
# by its thread past that, each write within CLIENT_IDLE_TIMEOUT, as before), and a worker at most
# SEND_BUDGET bytes in all (beyond it a thread writes as before, so that many slow readers cost
# memory up to there and never more).

SEND_AHEAD = 1 << 20
SEND_BUDGET = 64 << 20


class Outgoing:
    """The client's socket as a thread's answer sees it (gunicorn's Response writes to it):
    `sendall` sends what the socket takes without waiting and keeps the rest, which goes out
    before anything written after it. Anything else is the socket's own."""

    def __init__(self, sock, budget) -> None:
        self.sock = sock
        self.budget = budget  # the worker's Budget
        self.waiting: list[memoryview] = []  # in order, the first partly sent maybe
        self.size = 0  # bytes waiting, all held from the budget

    def __getattr__(self, name):
        return getattr(self.sock, name)

    def sendall(self, data) -> None:
        if not self.waiting:
            try:
                sent = self.sock.send(data, socket.MSG_DONTWAIT)
            except BlockingIOError:
                sent = 0
            if sent == len(data):
                return
            data = memoryview(data)[sent:]
        else:
            data = memoryview(data)
        if self.size + len(data) <= SEND_AHEAD and self.budget.hold(len(data)):
            self.waiting.append(data)
            self.size += len(data)
            return
        # Too much to keep: sent by this thread, what waits first (a blocking socket whose writes
        # give up after CLIENT_IDLE_TIMEOUT without progress, config/gunicorn.py).
        waiting, self.waiting, size, self.size = self.waiting, [], self.size, 0
        try:
            for part in waiting:
                self.sock.sendall(part)
        finally:
            self.budget.release(size)
        self.sock.sendall(data)

    def sendfile(self, file, offset: int = 0, count: int | None = None) -> None:
        """socket.sendfile's bytes, through sendall (after what waits; a static file is small)."""
        file.seek(offset)
        left = count
        while left is None or left > 0:
            block = file.read(RECEIVE_SIZE if left is None else min(RECEIVE_SIZE, left))
            if not block:
                return
            self.sendall(block)
            if left is not None:
                left -= len(block)

    def send_some(self) -> bool:
        """In the event loop, on a non-blocking socket: send what the socket takes; True once
        nothing waits. Raises OSError when the client is gone."""
        while self.waiting:
            part = self.waiting[0]
            try:
                sent = self.sock.send(part)
            except BlockingIOError:
                return False
            self.size -= sent
            self.budget.release(sent)
            if sent < len(part):
                self.waiting[0] = part[sent:]
                return False
            self.waiting.pop(0)
        return True

    def drop(self) -> None:
        """The connection is closed: what waits will never be sent."""
        self.budget.release(self.size)
        self.waiting, self.size = [], 0


def _queued(sock) -> int | None:
    """The bytes sent to the client's socket and not yet taken by the client (Linux's SIOCOUTQ),
    None where that cannot be told. The socket says it is writable again only once a good part
    of its buffer (megabytes) is free, long after a slow client has begun to read, so that is
    how a reading client is told from one that has stopped."""
    try:
        return struct.unpack("i", fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0" * 4))[0]
    except (OSError, AttributeError, ValueError):
        return None


class Budget:
    """The bytes a worker's waiting answers hold, at most `limit`; threads and the event loop
    share it."""

    def __init__(self, limit: int) -> None:
        self.limit, self.held = limit, 0
        self.lock = threading.Lock()

    def hold(self, size: int) -> bool:
        with self.lock:
            if self.held + size > self.limit:
                return False
            self.held += size
            return True

    def release(self, size: int) -> None:
        with self.lock:
            self.held -= size


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
        self.sending: dict = {}  # connection -> [its Outgoing, when the client last read, queued]
        self.budget = Budget(SEND_BUDGET)
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
        result = super().handle(conn)
        outgoing = conn.__dict__.pop("outgoing", None)
        if outgoing is not None and outgoing.waiting:  # the rest is sent by the event loop
            conn.outgoing, conn.then = outgoing, result
            return SEND
        return result

    def finish_request(self, conn, fs) -> None:
        """In the event loop, once a thread is done with a connection: one whose request is not
        whole is received here."""
        if fs.cancelled() or fs.exception() is not None:
            return super().finish_request(conn, fs)
        if fs.result() is SEND:
            return self._send(conn, conn.__dict__.pop("outgoing"))
        if fs.result() is not RECEIVE:
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
        if not self._own_framing(conn):
            return super().handle_request(req, conn)
        sock = conn.sock  # the answer is written through Outgoing (see "Sending an answer")
        conn.sock = conn.outgoing = Outgoing(sock, self.budget)
        try:
            return super().handle_request(req, conn)
        finally:
            conn.sock = sock

    def _send(self, conn, outgoing: Outgoing) -> None:
        """In the event loop: send the rest of an answer as the client reads it; then the
        connection goes on as its thread said (kept alive, or closed)."""
        try:
            conn.sock.setblocking(False)
            done = outgoing.send_some()
        except (OSError, ValueError):  # the client is gone, or its thread closed the socket
            return self._abandon(conn, outgoing)
        if done:
            return self._sent(conn)
        self.sending[conn] = [outgoing, time.monotonic(), _queued(conn.sock)]
        self.poller.register(conn.sock, EVENT_WRITE, partial(self._writable, conn))

    def _writable(self, conn, sock) -> None:
        entry = self.sending[conn]
        try:
            done = entry[0].send_some()
        except OSError:
            done = None
        if done is False:
            entry[1], entry[2] = time.monotonic(), _queued(sock)
            return
        self._stop_sending(conn)
        if done:
            return self._sent(conn)
        self._abandon(conn, entry[0])

    def _stop_sending(self, conn) -> Outgoing:
        outgoing = self.sending.pop(conn)[0]
        self.poller.unregister(conn.sock)
        return outgoing

    def _abandon(self, conn, outgoing: Outgoing) -> None:
        """The client is gone, or has stopped reading: the rest of its answer is dropped and the
        connection closed."""
        outgoing.drop()
        conn.__dict__.pop("then", None)
        self._close(conn)

    def _sent(self, conn) -> None:
        """The whole answer is sent: what the thread would have done with the connection."""
        then = conn.__dict__.pop("then")
        if not then:
            return self._linger(conn)  # closed as gunicorn closes, without waiting here
        done = Future()
        done.set_result(then)
        super().finish_request(conn, done)

    def murder_pending(self) -> None:
        """Requests that did not arrive in time are answered 408 and their connections closed
        (a connection that never began a request is closed quietly); so are connections whose
        client has read nothing of its answer for CLIENT_IDLE_TIMEOUT."""
        super().murder_pending()
        now = time.monotonic()
        for conn, entry in list(self.sending.items()):
            if entry[1] + CLIENT_IDLE_TIMEOUT > now:
                continue
            queued = _queued(conn.sock)
            if None not in (queued, entry[2]) and queued < entry[2]:  # read since: time runs again
                entry[1], entry[2] = now, queued
                continue
            outgoing = self._stop_sending(conn)
            self.log.warning(
                "answer not read for %g s: connection closed, %d bytes unsent",
                CLIENT_IDLE_TIMEOUT,
                outgoing.size,
            )
            self._abandon(conn, outgoing)
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
