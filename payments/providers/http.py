"""HTTP plumbing shared by the live adapters: one `requests` session, explicit timeouts on every
call, retries only for idempotent calls, transport failures turned into ProviderError, and a
process-wide cache of access tokens.

Nothing here logs a request or response body, a header or a credential: callers log what they
choose (the charge id, the provider's codes), never secrets.
"""

import json
import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import requests
from django.conf import settings

from core import deadlines
from payments.providers.base import ProviderError, ProviderTimeout

logger = logging.getLogger("payments.providers")

_session = requests.Session()
# Each call as a whole ends by its deadline (core.deadlines): connecting, then answering.
_session.mount("https://", deadlines.WatchedAdapter())
_session.mount("http://", deadlines.WatchedAdapter())
RETRY_STATUSES = {429, 502, 503, 504}
# The largest answer read from a provider: theirs are a few kilobytes. A longer one (a proxy's
# error page gone wrong, an endpoint streaming without end) is no answer about the money: it says
# nothing (ProviderError), and a worker never holds more of it than this.
MAX_ANSWER = 1 << 20


@dataclass(frozen=True)
class Answer:
    """A provider's answer, read whole (at most MAX_ANSWER bytes): what the adapters look at."""

    status_code: int
    headers: Mapping[str, str]  # case-insensitive, as requests gives them
    content: bytes
    encoding: str | None  # the charset the answer declares, as requests reads it from its headers

    @property
    def text(self) -> str:
        try:
            return str(self.content, self.encoding or "utf-8", errors="replace")
        except LookupError:  # a charset Python does not know
            return str(self.content, "utf-8", errors="replace")

    def json(self):
        """The JSON value of the body; ValueError when it is not JSON."""
        return json.loads(self.text if self.encoding else self.content)


def _read_at_most(response: requests.Response, what: str) -> Answer:
    """Read the answer's body now, within the call's deadline; past MAX_ANSWER bytes (decoded)
    the connection is dropped and the answer refused."""
    chunks, size = [], 0
    try:
        for chunk in response.iter_content(64 * 1024):
            size += len(chunk)
            if size > MAX_ANSWER:
                raise ProviderError(
                    f"{what}: HTTP {response.status_code}, an answer over {MAX_ANSWER} bytes"
                )
            chunks.append(chunk)
    finally:
        response.close()  # read whole, the connection goes back to the session's pool; else dropped
    return Answer(response.status_code, response.headers, b"".join(chunks), response.encoding)


def timeout() -> float:
    return settings.PROVIDER_HTTP_TIMEOUT


def send(
    method: str,
    url: str,
    *,
    what: str,
    ref: str,
    idempotent: bool,
    read_timeout: float | None = None,
    **kwargs,
) -> Answer:
    """One call to a provider. `what`/`ref` name it in logs (e.g. "airtel enquiry", a charge id).

    Idempotent calls (token fetch, status queries) are tried up to PROVIDER_HTTP_RETRIES more
    times after a transport failure or a 429/5xx gateway answer; others exactly once. A read
    timeout of a non-idempotent call raises requests.Timeout through ProviderTimeout so the caller
    can tell "no answer" from "no connection"; so does a call that outlasts its connect and read
    timeouts together (an answer dribbled byte by byte), cut at that deadline. An answer over
    MAX_ANSWER bytes raises ProviderError, unread past that."""
    attempts = 1 + (settings.PROVIDER_HTTP_RETRIES if idempotent else 0)
    connect = timeout()
    for attempt in range(1, attempts + 1):
        try:
            with deadlines.deadline(connect + (read_timeout or connect)):
                response = _session.request(
                    method, url, timeout=(connect, read_timeout or connect), stream=True, **kwargs
                )
                answer = _read_at_most(response, what)
        except (requests.Timeout, deadlines.DeadlinePassed) as exc:
            logger.warning("%s for %s: timeout (attempt %s/%s)", what, ref, attempt, attempts)
            if attempt == attempts:
                raise ProviderTimeout(f"{what}: no answer in time") from exc
        except requests.RequestException as exc:
            logger.warning(
                "%s for %s: %s (attempt %s/%s)", what, ref, type(exc).__name__, attempt, attempts
            )
            if attempt == attempts:
                raise ProviderError(f"{what}: {type(exc).__name__}") from exc
        else:
            if answer.status_code in RETRY_STATUSES and attempt < attempts:
                logger.warning("%s for %s: HTTP %s, retrying", what, ref, answer.status_code)
            else:
                logger.info("%s for %s: HTTP %s", what, ref, answer.status_code)
                return answer
        time.sleep(min(0.2 * attempt, 1.0))
    raise ProviderError(f"{what}: gave up")  # pragma: no cover - the loop returns or raises


def send_authorized(
    method: str,
    url: str,
    *,
    token_key: tuple,
    fetch_token: Callable[[], tuple[str, float]],
    headers: Callable[[str], dict[str, str]],
    **kwargs,
) -> Answer:
    """One call with the cached access token of `token_key` (headers(token) builds the headers).
    A 401 means the token was refused (expired, revoked): it is renewed, and an idempotent call
    (a status query) is made once more. A call that moves money (idempotent=False) is never made
    twice: its 401 goes back to the adapter, which leaves the payment or refund pending."""
    for renewed in (False, True):
        token = tokens.get(token_key, fetch_token)
        response = send(method, url, headers=headers(token), **kwargs)
        if response.status_code != 401:
            return response
        tokens.forget(token_key, token)
        if renewed or not kwargs.get("idempotent"):
            return response
    return response  # pragma: no cover


def client_credentials_token(
    url: str, *, what: str, default_lifetime: float, **kwargs
) -> tuple[str, float]:
    """An OAuth2 client-credentials token: POST `url` (the credentials, body and headers as the
    vendor takes them, in kwargs) → (access_token, lifetime in seconds, `default_lifetime` when
    the answer states none). ProviderError when the answer holds no token."""
    response = send("POST", url, what=what, ref="-", idempotent=True, **kwargs)
    body = json_body(response, what)
    token = body.get("access_token")
    if response.status_code != 200 or not token:
        raise ProviderError(f"{what}: HTTP {response.status_code}, no access_token")
    return str(token), lifetime(body.get("expires_in"), default_lifetime)


def json_body(response: Answer, what: str) -> dict:
    """The JSON object of an answer, or ProviderError when it is not one."""
    try:
        body = response.json()
    except ValueError as exc:
        raise ProviderError(f"{what}: HTTP {response.status_code}, not JSON") from exc
    if not isinstance(body, dict):
        raise ProviderError(f"{what}: HTTP {response.status_code}, not a JSON object")
    return body


@dataclass
class _Token:
    value: str
    good_until: float  # time.monotonic()
    issued: float  # time.monotonic() when we got it


class TokenCache:
    """Access tokens shared by every thread of the process, renewed shortly before they expire.
    A fetch may itself need another cached token (Orange's forms token needs its services token,
    which needs the access token): the lock is re-entrant for the fetching thread."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._tokens: dict[tuple, _Token] = {}

    def get(self, key: tuple, fetch: Callable[[], tuple[str, float]]) -> str:
        """The cached token for `key`, or a new one from fetch() → (token, lifetime seconds)."""
        return self.get_with_age(key, fetch)[0]

    def get_with_age(self, key: tuple, fetch: Callable[[], tuple[str, float]]) -> tuple[str, float]:
        """As get(), with the seconds since the token was obtained (for tokens that, like an
        M-Pesa session, only start to work a while after they are issued)."""
        with self._lock:
            now = time.monotonic()
            token = self._tokens.get(key)
            if not (token and token.good_until > now):
                value, lifetime = fetch()
                margin = min(60.0, lifetime / 5)
                now = time.monotonic()
                token = _Token(value, now + max(lifetime - margin, 0), issued=now)
                self._tokens[key] = token
            return token.value, now - token.issued

    def forget(self, key: tuple, value: str | None = None) -> None:
        """Drop the token of `key`; with `value`, only if it is still that token (another thread
        may already have replaced a refused token with a new one)."""
        with self._lock:
            token = self._tokens.get(key)
            if token and (value is None or token.value == value):
                del self._tokens[key]

    def clear(self) -> None:
        with self._lock:
            self._tokens.clear()


tokens = TokenCache()


def lifetime(value, default: float) -> float:
    """expires_in as providers send it (Airtel: a string) → seconds."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        return default
    return seconds if seconds > 0 else default


def redact(body: dict, secret_keys: tuple[str, ...] = ()) -> dict:
    """A copy of a provider answer safe to keep for staff: token-like fields removed."""
    hidden = {"access_token", "token", "pin", "client_secret", "notif_token", *secret_keys}

    def clean(value):
        if isinstance(value, dict):
            return {k: ("[hidden]" if k in hidden else clean(v)) for k, v in value.items()}
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return clean(body)
