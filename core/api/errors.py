"""The one exception handler: every error under /v1 leaves in one envelope,
`{"error": {type, code, message, param, request_id}}`, never as a stack trace."""

import json
import logging

from django.conf import settings
from django.core.exceptions import DisallowedHost, RequestDataTooBig
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpRequest, JsonResponse
from django.shortcuts import render
from django.utils.translation import get_language, gettext_noop, override
from django.utils.translation import gettext as _
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions as drf

from core.api.language import api_language
from core.errors import ApiError
from core.ids import request_id

logger = logging.getLogger("payments.api")

# Contract codes that a serializer field may raise directly.
IDEMPOTENCY_CODES = {"idempotency_key_invalid", "idempotency_key_reused", "idempotency_key_in_use"}
CONTRACT_CODES = {
    "invalid_json",
    "parameter_missing",
    "parameter_invalid",
    "parameter_unknown",
    "amount_invalid",
    "currency_not_supported",
    "phone_invalid",
    "phone_network_mismatch",
    "card_data_forbidden",
    "charge_not_refundable",
    "amount_exceeds_refundable",
    "url_invalid",
    "checkout_session_not_open",
} | IDEMPOTENCY_CODES
# Refused input worth one warning line (never a traceback): bodies that are not JSON we accept,
# out-of-range values, bodies over MAX_REQUEST_BODY.
LOGGED_CODES = {"invalid_json", "parameter_invalid", "request_too_large"}


def error_body(
    request_id: str | None, *, type: str, code: str, message: str, param: str | None = None
) -> dict:
    return {
        "error": {
            "type": type,
            "code": code,
            "message": message,
            "param": param,
            "request_id": request_id,
        }
    }


def raw_error(*, type: str, code: str, message: str) -> tuple[str, bytes, list[tuple[str, str]]]:
    """An answer in the error envelope for code that answers outside Django (the WSGI wrapper of
    core.api.middleware, and through raw_http_answer the web server's own answers in
    config/): its new request id, its body and its headers."""
    rid = request_id()
    data = json.dumps(
        error_body(rid, type=type, code=code, message=message), separators=(",", ":")
    ).encode()
    headers = [
        ("Content-Type", "application/json; charset=utf-8"),
        ("Content-Length", str(len(data))),
        ("Request-Id", rid),
        ("Cache-Control", "no-store"),
    ]
    return rid, data, headers


def raw_http_answer(status: int, reason: str, *, type: str, code: str, message: str):
    """A whole HTTP/1.1 answer in the error envelope, closing the connection, for the web server
    to write on a socket itself (its own refusals, a request that did not arrive in time): its
    request id and its bytes."""
    rid, data, headers = raw_error(type=type, code=code, message=message)
    head = f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n" + "".join(
        f"{name}: {value}\r\n" for name, value in headers
    )
    return rid, (head + "\r\n").encode("latin-1") + data


def error_response(
    request, status: int, *, type: str, code: str, message: str, param=None, headers=None
) -> JsonResponse:
    request_id = getattr(request, "request_id", None)
    if code in LOGGED_CODES:
        log_refused(request, status, code, message, param)
    response = JsonResponse(
        error_body(request_id, type=type, code=code, message=message, param=param),
        status=status,
        json_dumps_params={"ensure_ascii": False, "separators": (",", ":")},
    )
    response["Content-Type"] = "application/json; charset=utf-8"
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def log_refused(request, status: int, code: str, message: str, param=None) -> None:
    logger.warning(
        "%s %s on %s %s (param=%s, request_id=%s): %s",
        status,
        code,
        getattr(request, "method", "?"),
        getattr(request, "path", "?"),
        param,
        getattr(request, "request_id", None),
        message,
    )


def request_too_large_response(request, limit: int | None = None) -> JsonResponse:
    """413 for a body over its path's limit (MAX_REQUEST_BODY unless said), whatever the path."""
    return error_response(
        request,
        413,
        type="invalid_request_error",
        code="request_too_large",
        message=_("The request body is larger than %(max)s bytes.")
        % {"max": settings.MAX_REQUEST_BODY if limit is None else limit},
    )


def rate_limited_response(request, wait: float | None) -> JsonResponse:
    """429 rate_limited with Retry-After, for the API and for operators' callbacks."""
    wait = max(1, int(wait or 1))
    return error_response(
        request,
        429,
        type="rate_limit_error",
        code="rate_limited",
        message=_("Too many requests. Retry after %(wait)s seconds.") % {"wait": wait},
        headers={"Retry-After": str(wait)},
    )


def callback_refusal(
    request, status: int, *, type: str, code: str, message: str, param=None
) -> JsonResponse:
    """A provider's callback is not taken: the error envelope beside `"received": false`."""
    if code in LOGGED_CODES:
        log_refused(request, status, code, message, param)
    body = error_body(
        getattr(request, "request_id", None), type=type, code=code, message=message, param=param
    )
    return JsonResponse({"received": False, **body}, status=status)


def _first_validation_error(detail, prefix: str = "") -> tuple[str | None, str, str]:
    """(param, code, message) of the first error in a DRF ValidationError detail."""
    if isinstance(detail, dict):
        for field, sub in detail.items():
            name = field if field != "non_field_errors" else ""
            param = f"{prefix}[{name}]" if prefix and name else (name or prefix)
            return _first_validation_error(sub, param)
    if isinstance(detail, list) and detail:
        return _first_validation_error(detail[0], prefix)
    code = getattr(detail, "code", None) or "invalid"
    return (prefix or None), code, str(detail)


def _validation_error(request, exc: drf.ValidationError) -> JsonResponse:
    param, code, message = _first_validation_error(exc.detail)
    if code in CONTRACT_CODES:
        our_code = code
    elif code == "required":
        our_code = "parameter_missing"
        message = _("Missing required param: %(param)s.") % {"param": param}
    else:
        our_code = "parameter_invalid"
        if param and not message.lower().startswith(("invalid", param.lower())):
            message = _("Invalid %(param)s: %(message)s") % {"param": param, "message": message}
    error_type = "idempotency_error" if our_code in IDEMPOTENCY_CODES else "invalid_request_error"
    return error_response(
        request, 400, type=error_type, code=our_code, message=message, param=param
    )


def exception_handler(exc, context):
    request = context.get("request")
    if isinstance(exc, ApiError):
        return error_response(
            request,
            exc.status,
            type=exc.type,
            code=exc.code,
            message=exc.localized(),
            param=exc.param,
            headers=exc.headers,
        )
    if isinstance(exc, drf.ValidationError):
        return _validation_error(request, exc)
    if isinstance(exc, RequestDataTooBig):
        return request_too_large_response(request)
    if isinstance(exc, drf.NotAuthenticated):
        return error_response(
            request,
            401,
            type="authentication_error",
            code="missing_api_key",
            message=_("No API key provided. Send it as 'Authorization: Bearer <API_KEY>'."),
            headers={"WWW-Authenticate": 'Bearer realm="api"'},
        )
    if isinstance(exc, drf.AuthenticationFailed):
        return error_response(
            request,
            401,
            type="authentication_error",
            code="invalid_api_key",
            message=str(exc.detail),
            headers={"WWW-Authenticate": 'Bearer realm="api"'},
        )
    if isinstance(exc, (Http404, drf.NotFound)):
        return error_response(
            request,
            404,
            type="invalid_request_error",
            code="resource_missing",
            message=str(getattr(exc, "detail", "")) or _("No such object."),
        )
    if isinstance(exc, drf.MethodNotAllowed):
        return error_response(
            request,
            405,
            type="invalid_request_error",
            code="method_not_allowed",
            message=_("Method %(method)s is not allowed on this endpoint.")
            % {"method": request.method},
        )
    if isinstance(exc, drf.Throttled):
        return rate_limited_response(request, exc.wait)
    if isinstance(exc, drf.ParseError):
        return invalid_json_response(request, str(exc.detail))
    if isinstance(exc, drf.UnsupportedMediaType):
        return invalid_json_response(
            request,
            _("The request body must be a JSON object (Content-Type: application/json)."),
        )
    if isinstance(exc, (drf.PermissionDenied, DjangoPermissionDenied)):
        return error_response(
            request,
            403,
            type="permission_error",
            code="permission_denied",
            message=_("You do not have permission to perform this request."),
        )
    if isinstance(exc, drf.APIException):
        return error_response(
            request,
            exc.status_code,
            type="invalid_request_error",
            code=str(exc.get_codes()) if isinstance(exc.get_codes(), str) else "invalid_request",
            message=str(exc.detail),
        )
    if isinstance(exc, UNAVAILABLE):
        return service_unavailable_response(request, exc)
    logger.exception(
        "Unhandled error on %s %s (request_id=%s)",
        getattr(request, "method", "?"),
        getattr(request, "path", "?"),
        getattr(request, "request_id", None),
    )
    return internal_error_response(request)


# The database could not be reached or could not finish (connection refused or lost, too many
# connections, a lock or statement timeout, a deadlock): a moment's trouble, not a fault of the
# request, and what it began was rolled back.
UNAVAILABLE = (OperationalError, InterfaceError)
SERVICE_UNAVAILABLE_MESSAGE = gettext_noop(
    "The service is briefly unavailable. Retry in a moment: a retry with the same "
    "Idempotency-Key is always safe."
)


DEADLOCK = "40P01"  # PostgreSQL's SQLSTATE for deadlock_detected


def log_unavailable(request, exc: Exception) -> None:
    """One line in the log, not a traceback per request while the database is away. A deadlock
    is the exception: it says two code paths take the same locks in different orders, which the
    traceback of the one that lost shows."""
    said = str(exc).strip()
    deadlock = getattr(exc.__cause__, "sqlstate", None) == DEADLOCK
    logger.error(
        "Database %s on %s %s (request_id=%s): %s: %s",
        "deadlock" if deadlock else "unavailable",
        getattr(request, "method", "?"),
        getattr(request, "path", "?"),
        getattr(request, "request_id", None),
        type(exc).__name__,
        said.splitlines()[0] if said else "",
        exc_info=exc if deadlock else None,
    )


def service_unavailable_response(request, exc: Exception) -> JsonResponse:
    """503 `service_unavailable`, with Retry-After."""
    log_unavailable(request, exc)
    return _unavailable_answer(request)


def _unavailable_answer(request) -> JsonResponse:
    return error_response(
        request,
        503,
        type="api_error",
        code="service_unavailable",
        message=_(SERVICE_UNAVAILABLE_MESSAGE),
        headers={"Retry-After": "1"},
    )


def invalid_json_response(request, message: str) -> JsonResponse:
    return error_response(
        request, 400, type="invalid_request_error", code="invalid_json", message=message
    )


INTERNAL_ERROR_MESSAGE = gettext_noop(
    "An internal error occurred. It has been logged; quote the request id to support."
)


def internal_error_response(request) -> JsonResponse:
    return error_response(
        request, 500, type="api_error", code="internal_error", message=_(INTERNAL_ERROR_MESSAGE)
    )


@csrf_exempt  # as every /v1 view: API clients send no CSRF token, whatever the method
def not_found_view(request: HttpRequest, *args, **kwargs) -> JsonResponse:
    return error_response(
        request,
        404,
        type="invalid_request_error",
        code="resource_missing",
        message=_("Unrecognized request URL (%(method)s %(path)s).")
        % {"method": request.method, "path": request.path},
    )


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/v1/") or request.path == "/v1"


def handler404(request: HttpRequest, exception=None):
    if _is_api(request):
        return not_found_view(request)
    return defaults.page_not_found(request, exception)


def handler400(request: HttpRequest, exception=None):
    """A request Django refuses before any view (a Host header not in ALLOWED_HOSTS, another
    SuspiciousOperation): under /v1 in the error envelope, elsewhere Django's page."""
    if _is_api(request):
        if isinstance(exception, DisallowedHost):
            message = _("The Host header names no host this service answers for.")
        else:
            message = _("The request could not be read.")
        return error_response(
            request, 400, type="invalid_request_error", code="request_invalid", message=message
        )
    return defaults.bad_request(request, exception)


# The URLs outside /v1 that machines call, not browsers (payments/callbacks/urls.py): the
# operators' callbacks and the card provider's server-to-server notification.
MACHINE_PATH_PREFIXES = ("/providers/", "/card/notify")


def handler500(request: HttpRequest):
    if _is_api(request):
        return internal_error_response(request)
    return page_error(request, 500)


def page_error(request: HttpRequest, status: int):
    """A page (hosted checkout, card receipt) that failed: the customer sees the pages' own
    "try again in a moment" in their language, not a bare server error; the staff pages keep
    Django's; an operator's callback or the card provider's notification gets the API's error
    envelope (503 `service_unavailable` with Retry-After, or 500 `internal_error`), in English
    unless it asks for French, as any machine calling /v1 would."""
    if request.path.startswith("/admin"):
        return defaults.server_error(request)
    if request.path.startswith(MACHINE_PATH_PREFIXES):
        with override(api_language(request)):
            if status == 503:
                return _unavailable_answer(request)
            return internal_error_response(request)
    try:
        response = render(
            request,
            "checkout/error.html",
            {"language": get_language(), "request_id": getattr(request, "request_id", "")},
            status=status,
        )
    except Exception:  # the page itself cannot be made: the plainest answer
        logger.exception("the error page could not be made")
        return defaults.server_error(request)
    if status == 503:
        response["Retry-After"] = "1"
    return response
