"""gunicorn's settings in production (`gunicorn config.wsgi -c config/gunicorn.py`); the command
line still overrides any of them (e.g. --bind).

Two threads per worker: no request waits on anything slower than PostgreSQL or Redis (operators,
the card provider and merchants' receivers are called by Celery workers), so a thread is free
again within milliseconds, while each wait hands the interpreter to another of its worker's
threads and back, which costs CPU with every thread more (README "Performance": 4 × 2 answered
GET and POST of a charge faster than 4 × 4, with half the p99).

A request reaches a thread only once it has arrived whole (the worker, config/gunicorn_worker.py):
a client slow or silent in the middle of its request holds no thread, and is answered 408 there;
the part of an answer the client's socket does not take at once is sent by the worker's event loop.
What a thread still reads or writes on a client's socket (the rest of an answer longer than the
worker keeps waiting, an unread body drained before the connection is kept alive) gives up after
CLIENT_IDLE_TIMEOUT seconds without progress: without it a thread would wait for such a client
for ever. An idle
kept-alive connection waits in gunicorn's poller, not in a thread, and is closed by its
keep-alive timeout as before.

A request gunicorn itself refuses before the application sees it (a malformed request line or
header, a request line over 4094 bytes, a header field over 8190) is answered in the API's error
envelope, JSON with a Request-Id, instead of gunicorn's HTML page. A header that may be given once
only (Idempotency-Key) and was given more than once is named to the application, which refuses it
(the server would otherwise join the values with a comma into one value, a key nobody sent)."""

import logging
import os
import socket
import struct

from config.gunicorn_worker import CLIENT_IDLE_TIMEOUT, assign_load_slot

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "4"))
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
# gthread, whose threads take a request only once it has arrived whole (config/gunicorn_worker.py)
worker_class = "config.gunicorn_worker.WholeRequestWorker"
# gunicorn's control socket (`gunicornc`: change the number of workers, reload, shut down) only at a
# path the deployment names. gunicorn's default is one path per user on the machine
# ($XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl), taken over by whichever of the
# user's gunicorns started last and removed by whichever stops first: a command could reach
# another server than the one meant, or none.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not control_socket


def _idle_timeout(listeners) -> None:
    """Give listening sockets a receive and a send timeout (SO_RCVTIMEO, SO_SNDTIMEO): each
    connection accepted from them starts with the same on Linux (from the moment its handshake
    completes), and gunicorn's blocking reads and writes then fail after CLIENT_IDLE_TIMEOUT
    seconds without progress. A thread of this config's worker reads only whole requests; under
    any other worker a body that fails so is answered 408 by the application
    (payments.api.middleware.request_bodies); gunicorn closes the rest."""
    seconds = int(CLIENT_IDLE_TIMEOUT)
    timeval = struct.pack("ll", seconds, int((CLIENT_IDLE_TIMEOUT - seconds) * 1_000_000))
    for listener in listeners:
        if listener.FAMILY in (socket.AF_INET, socket.AF_INET6):
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, timeval)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, timeval)


def when_ready(server) -> None:
    """The master's listening sockets, before any worker starts: connections already waiting
    when the first worker boots have the timeouts too."""
    _idle_timeout(server.LISTENERS)


class _SilentClientDropped(logging.Filter):
    """gunicorn reports a read or write that ran out of CLIENT_IDLE_TIMEOUT as an error with its
    traceback ("Socket error processing request.", BlockingIOError): a client that went silent is
    no fault of ours, so it is said in one warning line."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, BlockingIOError) and record.msg == "Socket error processing request.":
            record.msg, record.args = (
                "client silent for %s s: connection dropped",
                (CLIENT_IDLE_TIMEOUT,),
            )
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


def pre_fork(server, worker) -> None:
    """In the master, before a worker is forked: its row in the table through which the workers
    share new connections fairly (config/gunicorn_worker.py)."""
    assign_load_slot(server, worker)


def post_fork(server, worker) -> None:
    """A worker's own sockets (--reuse-port gives each worker its own), as soon as they exist;
    its error log told what a silent client is; and its refusals written in the error envelope."""
    _idle_timeout(worker.sockets)
    worker.log.error_log.addFilter(_SilentClientDropped())
    from gunicorn import util

    util.write_error = write_error  # what gunicorn's Worker.handle_error answers with


# Headers a request may carry once only: RFC 9110 lets a server join a repeated header's values
# with commas into one, which for these is a value nobody sent (two Idempotency-Keys `a` and `b`
# would become the new key `a,b`, and a retry carrying `a` alone would make a second charge).
ONCE_ONLY_HEADERS = ("IDEMPOTENCY-KEY",)
# Set by the server alone (a client's own is dropped): the once-only headers given more than once.
REPEATED_HEADERS = "X-REPEATED-HEADERS"
REPEATED_HEADERS_META = "HTTP_" + REPEATED_HEADERS.replace("-", "_")


def pre_request(worker, req) -> None:
    """Name the once-only headers a request repeats in REPEATED_HEADERS, dropping any the client
    sent under that name; the application decides (payments.api.idempotency refuses a repeated
    Idempotency-Key). gunicorn's own pre_request only logs the request at debug level."""
    req.headers = [(name, value) for name, value in req.headers if name != REPEATED_HEADERS]
    names = [name for name, _ in req.headers]
    repeated = [name for name in ONCE_ONLY_HEADERS if names.count(name) > 1]
    if repeated:
        req.headers.append((REPEATED_HEADERS, ",".join(repeated)))


def write_error(sock, status_int: int, reason: str, mesg: str) -> None:
    """gunicorn.util.write_error, in the API's error envelope: gunicorn's answer to a request it
    refused before the application (400 malformed, 414 request line too long, 431 header fields
    too large, 417, 501 unknown transfer coding) or to a failure outside the application (500)."""
    from gunicorn.util import write_nonblock

    from payments.api.errors import INTERNAL_ERROR_MESSAGE, raw_http_answer

    if status_int >= 500 and status_int != 501:  # gunicorn has logged it, with its traceback
        kind, code, message = "api_error", "internal_error", INTERNAL_ERROR_MESSAGE
    else:
        kind, code = "invalid_request_error", "request_invalid"
        message = f"{reason}: {mesg}" if mesg else reason
    _, answer = raw_http_answer(status_int, reason, type=kind, code=code, message=message)
    write_nonblock(sock, answer)
