"""One signed POST to a merchant's URL, made safely. Knows nothing of the ORM.

What an attempt that got no answer records (and merchants see) is one sentence, NO_ANSWER, whether
the connection was refused, reset, cut at its deadline or timed out: which of these happened says
which ports of an address are open, so it is only written to the server's log.

Every mode checks where it sends: the host is resolved, every address is checked, and the
connection is made to a checked address, so a DNS answer cannot change between the check and the
connection. Cloud metadata, link-local, multicast, unspecified and reserved addresses are always
refused; loopback and private ones only when private networks are allowed
(WEBHOOK_ALLOW_PRIVATE_NETWORKS, for local development). Live mode also requires https. Redirects
are never followed. `url_refusal` applies the same address rules to a URL whose host is an IP
literal, so such a URL is refused when it is given, not only when it is called.
"""

import ipaddress
import logging
import socket
import threading
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

import requests

from core import deadlines
from core.destinations import (
    DestinationRefused,
    IpAddress,
    forbidden_reason,
    literal_address,
    split_url,
)

logger = logging.getLogger("webhooks")

ANSWER_KEPT = 1024  # bytes of the answer kept for staff
# Every failure to get an answer, in the same words (the cause goes to the log only).
NO_ANSWER = "No answer: the connection failed or timed out."
USER_AGENT = "congopay-webhooks/1"


@dataclass(frozen=True)
class Answer:
    status_code: int | None
    error: str
    body: str
    duration_ms: int
    refused: bool = False

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class Unresolved(requests.ConnectionError):
    """The host name has no address (perhaps for now): said as it is, no port was tried."""


def _resolve(host: str, port: int) -> list[IpAddress]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise Unresolved(f"cannot resolve {host}: {exc.strerror}") from exc
    addresses = []
    for info in infos:
        address = ipaddress.ip_address(info[4][0].split("%", 1)[0])
        if address not in addresses:
            addresses.append(address)
    # IPv4 first: the one address we connect to should be the most likely to answer.
    return sorted(addresses, key=lambda a: a.version)


def checked_address(url: str, *, livemode: bool, allow_private: bool) -> IpAddress:
    """The address a delivery to `url` connects to, after checking every address of the host.

    Raises DestinationRefused when the URL may not be called (live and not https, or an address
    forbidden_reason refuses), and requests.ConnectionError when the host does not resolve (which
    may be temporary)."""
    scheme, host, port = split_url(url)
    if livemode and scheme != "https":
        raise DestinationRefused("live webhook URLs must use https")
    literal = literal_address(host)
    addresses = [literal] if literal is not None else _resolve(host, port)
    for address in addresses:
        reason = forbidden_reason(address, allow_private=allow_private)
        if reason:
            raise DestinationRefused(
                "%(host)s resolves to %(address)s, %(reason)s",
                host=host,
                address=str(address),
                reason=reason,
            )
    if not addresses:
        raise Unresolved(f"cannot resolve {host}")
    return addresses[0]


class PinnedAddressAdapter(deadlines.WatchedAdapter):
    """Connects to one given address while TLS still checks the certificate for the URL's host."""

    def __init__(self, address: IpAddress) -> None:
        self.address = str(address)
        super().__init__(max_retries=0)

    def build_connection_pool_key_attributes(self, request, verify, cert=None):
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        hostname = host_params["host"]
        host_params["host"] = self.address
        if host_params["scheme"] == "https":
            pool_kwargs["server_hostname"] = hostname
            pool_kwargs["assert_hostname"] = hostname
        return host_params, pool_kwargs


# Connections are kept open between deliveries to the same checked address (one session per
# address and thread), for a short while only: a server may close an idle connection at any time,
# and a request sent on one it has just closed fails.
KEEP_ALIVE_SECONDS = 2.0
MAX_SESSIONS = 64  # per thread
_sessions = threading.local()


def _session(address: IpAddress) -> requests.Session:
    """A session whose every connection goes to `address`, reused while it is fresh."""
    pool: dict = _sessions.__dict__.setdefault("pool", {})
    now = time.monotonic()
    found = pool.pop(address, None)
    if found is not None and now - found[1] <= KEEP_ALIVE_SECONDS:
        session = found[0]
    else:
        if found is not None:
            found[0].close()
        if len(pool) >= MAX_SESSIONS:
            for stale, _ in pool.values():
                stale.close()
            pool.clear()
        session = requests.Session()
        session.trust_env = False  # no proxy from the environment: we decide where we connect
        adapter = PinnedAddressAdapter(address)
        session.mount("https://", adapter)
        session.mount("http://", adapter)
    pool[address] = (session, now)
    return session


def _session_drop(address: IpAddress) -> None:
    """Forget the session to `address`: a request cut short leaves its connection unusable."""
    found = _sessions.__dict__.get("pool", {}).pop(address, None)
    if found is not None:
        found[0].close()


def post(
    *,
    url: str,
    body: bytes,
    headers: dict[str, str],
    livemode: bool,
    timeout: float,
    allow_private: bool = False,
) -> Answer:
    """POST `body` once. Never raises for network trouble: the answer says what happened."""
    started = time.monotonic()

    def elapsed() -> int:
        return int((time.monotonic() - started) * 1000)

    all_headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        **headers,
    }
    try:
        address = checked_address(url, livemode=livemode, allow_private=allow_private)
        session = _session(address)
        all_headers["Host"] = urlsplit(url).netloc.rsplit("@", 1)[-1]
        # Connecting, then answering, each within `timeout`: the delivery's hold counts on as much.
        with deadlines.deadline(2 * timeout):
            response = session.post(
                url,
                data=body,
                headers=all_headers,
                timeout=timeout,
                allow_redirects=False,
                stream=True,
            )
            try:
                # A short answer read to its end leaves the connection free for the next one.
                kept = response.raw.read(ANSWER_KEPT, decode_content=True) or b""
            finally:
                response.close()
    except deadlines.DeadlinePassed:
        _session_drop(address)
        return _no_answer(url, f"timed out after {2 * timeout:g} s in all", elapsed())
    except DestinationRefused as exc:
        return Answer(None, f"Refused destination: {exc}.", "", elapsed(), refused=True)
    except Unresolved as exc:
        return Answer(None, f"Connection failed: {exc}.", "", elapsed())
    except requests.Timeout:
        return _no_answer(url, f"timed out after {timeout:g} s", elapsed())
    except requests.RequestException as exc:  # refused, reset, TLS, a broken answer, …
        return _no_answer(url, _reason(exc), elapsed())
    text = kept.decode("utf-8", errors="replace")
    error = ""
    if response.is_redirect:
        error = f"HTTP {response.status_code} redirect to {response.headers.get('Location')!r} not followed."
    elif not 200 <= response.status_code < 300:
        error = f"HTTP {response.status_code}."
    return Answer(response.status_code, error, text, elapsed())


def _no_answer(url: str, cause: str, duration_ms: int) -> Answer:
    logger.info("webhook POST to %s got no answer: %s", url, cause)
    return Answer(None, NO_ANSWER, "", duration_ms)


def _reason(exc: Exception) -> str:
    """The innermost cause, which is the readable part (e.g. 'Connection refused')."""
    seen: set[int] = set()
    cause: Exception = exc
    while id(cause) not in seen:
        seen.add(id(cause))
        reason = getattr(cause, "reason", None)
        inner = reason if isinstance(reason, Exception) else None
        if inner is None and cause.args and isinstance(cause.args[0], Exception):
            inner = cause.args[0]
        inner = inner or cause.__cause__
        if inner is None:
            break
        cause = inner
    return str(cause)[:300] or type(cause).__name__
