"""gunicorn's settings in production (`gunicorn config.wsgi -c config/gunicorn.py`); the command
line still overrides any of them (e.g. --bind).

Two threads per worker: no request waits on anything slower than PostgreSQL or Redis (operators,
the card provider and merchants' receivers are called by Celery workers), so a thread is free
again within milliseconds, while each wait hands the interpreter to another of its worker's
threads and back, which costs CPU with every thread more (README "Performance": 4 × 2 answered
GET and POST of a charge faster than 4 × 4, with half the p99).

A client silent for CLIENT_IDLE_TIMEOUT seconds in the middle of its request (headers or body) or
not reading its answer is dropped: without it a thread waits for it for ever, and a handful of
phones that lost their network mid-request (or a handful of sockets held open on purpose) would
hold every thread of the service. An idle kept-alive connection waits in gunicorn's poller, not
in a thread, and is closed by its keep-alive timeout as before."""

import logging
import os
import socket
import struct

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "4"))
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
CLIENT_IDLE_TIMEOUT = float(os.environ.get("CLIENT_IDLE_TIMEOUT", "15"))


def _idle_timeout(listeners) -> None:
    """Give listening sockets a receive and a send timeout (SO_RCVTIMEO, SO_SNDTIMEO): each
    connection accepted from them starts with the same on Linux (from the moment its handshake
    completes), and gunicorn's blocking reads and writes then fail after CLIENT_IDLE_TIMEOUT
    seconds without progress. A body that fails so is answered 408
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


def post_fork(server, worker) -> None:
    """A worker's own sockets (--reuse-port gives each worker its own), as soon as they exist;
    and its error log told what a silent client is."""
    _idle_timeout(worker.sockets)
    worker.log.error_log.addFilter(_SilentClientDropped())
