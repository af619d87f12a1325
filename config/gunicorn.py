"""gunicorn's settings in production (`gunicorn config.wsgi -c config/gunicorn.py`), behind the
buffering nginx of deploy/nginx/; the command line still overrides any of them (e.g. --bind).

gunicorn's own threaded worker: nginx reads each request whole before it hands it over and takes
each answer whole as fast as gunicorn writes it, so a thread never waits on a slow or silent
client (gunicorn's documentation asks for such a proxy in front of it). Without nginx a client
sending its request slowly, or not reading its answer, holds a thread for as long as it likes.

Two threads per worker: no request waits on anything slower than PostgreSQL or Redis (operators,
the card provider and merchants' receivers are called by Celery workers), so a thread is soon free
again, while each wait hands the interpreter to another of its worker's threads and back, which
costs CPU with every thread more (docs/performance.md compares the counts)."""

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "4"))
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
worker_class = "gthread"
# Each worker listens on its own socket (SO_REUSEPORT) and the kernel shares new connections among
# them, instead of whichever worker wakes first taking a burst (nginx opening its upstream
# connections) and serving it on one core.
reuse_port = True
# A request taking longer than this has its worker restarted (nginx's proxy_read_timeout is longer).
timeout = 30
# On SIGTERM gunicorn stops accepting at once and gives the requests it holds this long to finish.
# A web node is drained before it gets SIGTERM (deploy/congopay-drain, congopay-web.service's
# ExecStop=): /readyz answers 503 for DRAIN_SECONDS first, so that the balancer has stopped
# sending it requests by then.
graceful_timeout = 30
# nginx keeps its idle upstream connections for 60 s (upstream keepalive_timeout): gunicorn keeps
# them longer, so nginx never sends a request on a connection gunicorn is closing.
keepalive = 75
# nginx refuses a request line over its 4 KB buffers (414) itself; gunicorn's own limit is higher
# so that every such refusal is nginx's, in the API's envelope.
limit_request_line = 8190
# The proxies whose X-Forwarded-Proto gunicorn believes (wsgi.url_scheme): nginx on this machine
# when the service counts one proxy in front of it (THROTTLE_TRUSTED_PROXIES, which reads the
# client's address from X-Forwarded-For), nobody otherwise; FORWARDED_ALLOW_IPS names others.
forwarded_allow_ips = os.environ.get(
    "FORWARDED_ALLOW_IPS",
    "127.0.0.1,::1" if int(os.environ.get("THROTTLE_TRUSTED_PROXIES", "0")) > 0 else "",
)
# gunicorn's control socket (`gunicornc`: change the number of workers, reload, shut down) only at a
# path the deployment names. gunicorn's default is one path per user on the machine
# ($XDG_RUNTIME_DIR/gunicorn.ctl or ~/.gunicorn/gunicorn.ctl), taken over by whichever of the
# user's gunicorns started last and removed by whichever stops first: a command could reach
# another server than the one meant, or none.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not control_socket

# Headers a request may carry once only: RFC 9110 lets a server join a repeated header's values
# with commas into one, which for these is a value nobody sent (two Idempotency-Keys `a` and `b`
# would become the new key `a,b`, and a retry carrying `a` alone would make a second charge).
# nginx passes a repeated header on as it came, as two header lines.
ONCE_ONLY_HEADERS = ("IDEMPOTENCY-KEY",)
# Set by the server alone (a client's own is dropped): the once-only headers given more than once.
REPEATED_HEADERS = "X-REPEATED-HEADERS"
REPEATED_HEADERS_META = "HTTP_" + REPEATED_HEADERS.replace("-", "_")


def pre_request(worker, req) -> None:
    """Name the once-only headers a request repeats in REPEATED_HEADERS, dropping any the client
    sent under that name; the application decides (core.api.idempotency refuses a repeated
    Idempotency-Key). gunicorn's own pre_request only logs the request at debug level."""
    req.headers = [(name, value) for name, value in req.headers if name != REPEATED_HEADERS]
    names = [name for name, _ in req.headers]
    repeated = [name for name in ONCE_ONLY_HEADERS if names.count(name) > 1]
    if repeated:
        req.headers.append((REPEATED_HEADERS, ",".join(repeated)))
