"""The errors the library raises. Every answer of the API that is not a success is an `APIError`
(of the subclass of its `type`), carrying what the error envelope says; a service that could not
be reached after the retries is an `APIConnectionError`; a webhook that does not verify is a
`WebhookVerificationError`."""

from __future__ import annotations

from typing import Any


class CongopayError(Exception):
    """Every error of this library."""


class APIError(CongopayError):
    """The API answered with an error: branch on `code`, show `message` to people, quote
    `request_id` to support."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        type: str | None = None,
        code: str | None = None,
        param: str | None = None,
        request_id: str | None = None,
        headers: dict[str, str] | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.type = type
        self.code = code
        self.param = param
        self.request_id = request_id
        self.headers = headers or {}
        self.body = body

    def __str__(self) -> str:
        details = ", ".join(
            f"{name} {value}"
            for name, value in (
                ("status", self.status),
                ("code", self.code),
                ("param", self.param),
                ("request", self.request_id),
            )
            if value is not None
        )
        return f"{self.message} ({details})" if details else self.message

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(message={self.message!r}, status={self.status!r}, "
            f"type={self.type!r}, code={self.code!r}, param={self.param!r}, "
            f"request_id={self.request_id!r})"
        )


class InvalidRequestError(APIError):
    """400, 404, 405, 413: the request is refused; `code` and `param` say why."""


class AuthenticationError(APIError):
    """401: the API key is missing, unknown or revoked."""


class PermissionDeniedError(APIError):
    """403: the key may not do this (live mode not approved, card rail disabled)."""


class IdempotencyError(APIError):
    """400 or 409: an Idempotency-Key reused for another request, or still in use."""


class RateLimitError(APIError):
    """429: too many requests; the library has already waited and retried."""


class ServiceError(APIError):
    """5xx: the service or a provider is unavailable; the library has already retried."""


class APIConnectionError(CongopayError):
    """No answer from the service (refused, cut, timed out), after the retries. A POST may
    still have been done: retry it with the same `idempotency_key` to learn its outcome."""

    def __init__(self, message: str, *, idempotency_key: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.idempotency_key = idempotency_key


class APITimeoutError(APIConnectionError):
    """The service did not answer within the timeout, after the retries."""


class WebhookVerificationError(CongopayError):
    """A webhook delivery whose headers or signature do not verify, or whose timestamp is more
    than five minutes away from now: do not trust its body."""


BY_TYPE: dict[str, type[APIError]] = {
    "invalid_request_error": InvalidRequestError,
    "authentication_error": AuthenticationError,
    "permission_error": PermissionDeniedError,
    "idempotency_error": IdempotencyError,
    "rate_limit_error": RateLimitError,
    "api_error": ServiceError,
}
