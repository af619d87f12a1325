"""The vendors' answers read the same way by every adapter: a message the vendor did not take
because of itself (5xx, 429, a timeout, no connection, a refused token) is tried again later;
any other refusal is final. The calls go through payments' provider HTTP layer (timeouts,
deadlines, bounded answers, the token cache): a message is posted once per attempt."""

from messaging.providers.base import SmsRejected, SmsTemporaryError
from payments.providers import http
from payments.providers.base import ProviderError

TEMPORARY_STATUSES = {408, 429}


def post(url: str, *, what: str, ref: str, **kwargs) -> http.Answer:
    """POST one message; SmsTemporaryError when the vendor could not take it now."""
    try:
        answer = http.send("POST", url, what=what, ref=ref, idempotent=False, **kwargs)
    except ProviderError as exc:  # a timeout, no connection, an answer too long
        raise SmsTemporaryError(str(exc)) from exc
    if answer.status_code >= 500 or answer.status_code in TEMPORARY_STATUSES:
        raise SmsTemporaryError(f"{what}: HTTP {answer.status_code}")
    return answer


def json_object(answer: http.Answer, what: str) -> dict:
    try:
        return http.json_body(answer, what)
    except ProviderError as exc:
        raise SmsRejected(str(exc)) from exc


def token(key: tuple, fetch) -> str:
    """A cached access token; SmsTemporaryError when none can be had now."""
    try:
        return http.tokens.get(key, fetch)
    except ProviderError as exc:
        raise SmsTemporaryError(str(exc)) from exc


def forget_token(key: tuple, value: str) -> None:
    http.tokens.forget(key, value)


def client_credentials_token(url: str, **kwargs) -> tuple[str, float]:
    return http.client_credentials_token(url, **kwargs)
