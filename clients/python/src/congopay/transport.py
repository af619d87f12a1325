"""One request to the API, with the retries that make it safe to call from a shop's server:

- every POST carries an `Idempotency-Key` (a UUID v4 unless the caller gives one), the same on
  every retry, so the service does the work once and replays its first answer;
- connection errors, timeouts, 409 `idempotency_key_in_use` (the first request with that key is
  still running), 429 and 5xx are retried, `max_retries` times at most, after an exponential
  backoff with jitter (0.5 s, 1 s, 2 s, … up to 8 s, each between half and all of it), or after
  the `Retry-After` the service sent (up to a minute; longer, the error is raised at once);
- any other 4xx is the caller's to fix and is raised at once.

urllib.request from the standard library, so that the package needs nothing else."""

from __future__ import annotations

import http.client
import json
import platform
import random
import ssl
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from email.message import Message
from typing import Any

from . import errors

VERSION = "0.1.0"
RETRY_AFTER_MAX = 60.0
BACKOFF_FIRST = 0.5
BACKOFF_MAX = 8.0


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is answered to the caller as an error: urllib would turn a redirected POST into
    a GET, and the API never redirects (an http:// base URL behind https is a setting to fix)."""

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: Any,
        code: int,
        msg: str,
        headers: Message,
        newurl: str,
    ) -> None:
        return None


@dataclass
class Answer:
    status: int
    headers: Message
    body: bytes


def encode_query(query: Mapping[str, Any]) -> str:
    """A query string: booleans as the API writes them, lists repeated, None left out."""
    pairs = []
    for name, value in query.items():
        for one in value if isinstance(value, list | tuple) else [value]:
            if one is None:
                continue
            pairs.append((name, "true" if one is True else "false" if one is False else str(one)))
    return urllib.parse.urlencode(pairs)


class Transport:
    def __init__(
        self,
        *,
        api_key: str,
        base_url: str,
        max_retries: int = 2,
        timeout: float = 30,
        user_agent: str = "",
    ) -> None:
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.timeout = timeout
        self.user_agent = user_agent or (
            f"congopay-python/{VERSION} Python/{platform.python_version()}"
        )
        self.opener = urllib.request.build_opener(_NoRedirects())

    def request(
        self,
        method: str,
        path: str,
        *,
        query: Mapping[str, Any] | None = None,
        body: Any = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """The JSON answer (or the bytes of another media type) of one operation, retried as the
        module says; an `APIError` or `APIConnectionError` otherwise."""
        url = self.base_url + path
        if query:
            url += "?" + encode_query(query)
        headers = {
            "Authorization": f"Bearer {self.api_key}",
            "Accept": "application/json",
            "User-Agent": self.user_agent,
        }
        data = None
        if body is not None:
            data = json.dumps(body, ensure_ascii=False).encode()
            headers["Content-Type"] = "application/json"
        if method == "POST":
            idempotency_key = idempotency_key or str(uuid.uuid4())
            headers["Idempotency-Key"] = idempotency_key
        attempt = 0
        while True:
            try:
                answer = self.send(method, url, headers, data)
            except (OSError, http.client.HTTPException) as error:
                if attempt >= self.max_retries or not retryable_failure(error):
                    raise connection_error(error, method, url, idempotency_key) from error
                time.sleep(backoff(attempt))
                attempt += 1
                continue
            if 200 <= answer.status < 300:
                return decoded(answer)
            refused = api_error(answer)
            wait = retry_delay(answer, refused, attempt)
            if attempt >= self.max_retries or wait is None:
                raise refused
            time.sleep(wait)
            attempt += 1

    def send(self, method: str, url: str, headers: dict[str, str], data: bytes | None) -> Answer:
        request = urllib.request.Request(url, data=data, headers=headers, method=method)
        try:
            with self.opener.open(request, timeout=self.timeout) as response:
                return Answer(response.status, response.headers, response.read())
        except urllib.error.HTTPError as answer:
            with answer:
                return Answer(answer.code, answer.headers, answer.read())


def retryable_failure(error: Exception) -> bool:
    """A refused, cut or timed-out connection is retried; a certificate that does not verify
    will not mend by itself."""
    reason = error.reason if isinstance(error, urllib.error.URLError) else error
    return not isinstance(reason, ssl.SSLCertVerificationError)


def connection_error(
    error: Exception, method: str, url: str, idempotency_key: str | None
) -> errors.APIConnectionError:
    reason = error.reason if isinstance(error, urllib.error.URLError) else error
    timed_out = isinstance(reason, TimeoutError)
    kind = errors.APITimeoutError if timed_out else errors.APIConnectionError
    what = "no answer in time" if timed_out else f"could not reach the service ({reason})"
    return kind(f"{method} {url}: {what}", idempotency_key=idempotency_key)


def backoff(attempt: int) -> float:
    delay = min(BACKOFF_MAX, BACKOFF_FIRST * 2.0**attempt)
    return delay / 2 + random.uniform(0, delay / 2)


def retry_delay(answer: Answer, error: errors.APIError, attempt: int) -> float | None:
    """How long to wait before retrying this error answer; None: do not retry it."""
    in_use = answer.status == 409 and error.code == "idempotency_key_in_use"
    if not (in_use or answer.status == 429 or answer.status >= 500):
        return None
    retry_after = answer.headers.get("Retry-After")
    if retry_after is not None:
        try:
            seconds = float(retry_after)
        except ValueError:
            seconds = None  # an HTTP date: the usual backoff instead
        if seconds is not None:
            return max(0.0, seconds) if seconds <= RETRY_AFTER_MAX else None
    return backoff(attempt)


def decoded(answer: Answer) -> Any:
    if not answer.body:
        return None
    if (answer.headers.get_content_type() or "") == "application/json":
        return json.loads(answer.body)
    return answer.body


def api_error(answer: Answer) -> errors.APIError:
    """The error of an answer: the API's envelope, or what a proxy in front of it said."""
    headers = dict(answer.headers.items())
    try:
        body = json.loads(answer.body)
        envelope = body["error"]
        if not isinstance(envelope, dict):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        text = answer.body.decode(errors="replace").strip()[:200]
        if location := answer.headers.get("Location"):
            text = f"redirected to {location}: set base_url to where the API answers"
        kind = errors.ServiceError if answer.status >= 500 else errors.APIError
        return kind(
            f"the service answered HTTP {answer.status}" + (f": {text}" if text else ""),
            status=answer.status,
            type="api_error" if answer.status >= 500 else None,
            request_id=answer.headers.get("Request-Id"),
            headers=headers,
            body=text,
        )
    kind = errors.BY_TYPE.get(envelope.get("type") or "", errors.APIError)
    return kind(
        envelope.get("message") or f"HTTP {answer.status}",
        status=answer.status,
        type=envelope.get("type"),
        code=envelope.get("code"),
        param=envelope.get("param"),
        request_id=envelope.get("request_id") or answer.headers.get("Request-Id"),
        headers=headers,
        body=body,
    )
