"""Request-Id on every response; requests no view can take refused up front (a body over
MAX_REQUEST_BODY, or MAX_UPLOAD_BODY where documents are sent → 413, a NUL character in the URL → 400); JSON (never a traceback) for any
unhandled error under /v1."""

import io
import logging
import tempfile

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http.multipartparser import MultiPartParserError
from django.utils import translation
from django.utils.translation import gettext

from core.api.language import api_language
from core.ids import request_id

logger = logging.getLogger("payments.api")

# Raised while a view reads a form body that cannot be read: refused, never a 500.
UNREADABLE_FORM = (TooManyFieldsSent, TooManyFilesSent, MultiPartParserError)


def request_bodies(app):
    """The WSGI application `app`, with each request's body read whole before it runs, up to
    its limit + 1 bytes (body_limit; a longer one is refused with 413 by RequestIdMiddleware,
    unread).

    - A body sent without a Content-Length (Transfer-Encoding: chunked) is read too. Django reads
      a body only as long as CONTENT_LENGTH says, so such a body would be read as empty (a charge
      sent so answered "Missing required param: amount"). It is read where the server says the
      input ends with the body (PEP 3333's wsgi.input_terminated: gunicorn decodes the chunks).
    - A body whose read fails before it ends (the client went away, or its connection was cut)
      is answered 408 `request_timeout` in the error envelope, here, whatever view the request
      was for, instead of inside a view as an unreadable body (a 500). In production nginx hands
      a request over only once it has it whole (config/gunicorn.py)."""

    def application(environ, start_response):
        cap = body_limit(environ.get("PATH_INFO", "")) + 1
        length = environ.get("CONTENT_LENGTH")
        if length:
            size = int(length) if length.isdigit() else 0
        elif (
            environ.get("wsgi.input_terminated")
            and "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        ):
            size = cap
        else:
            size = 0
        if 0 < size <= cap:
            try:
                body, read = _read_whole(environ["wsgi.input"], size)
            except OSError as exc:  # the client went silent (or away) before its body ended
                return _body_timed_out(environ, start_response, exc)
            environ["wsgi.input"] = body
            environ["CONTENT_LENGTH"] = str(read)
        return app(environ, start_response)

    return application


def body_limit(path: str) -> int:
    """The largest body a request to `path` may send: MAX_REQUEST_BODY, or MAX_UPLOAD_BODY on the
    pages that take documents (UPLOAD_PATHS)."""
    if path in settings.UPLOAD_PATHS:
        return settings.MAX_UPLOAD_BODY
    return settings.MAX_REQUEST_BODY


def _read_whole(stream, size: int):
    """(a file holding at most `size` bytes of `stream`, how many it holds). A body within
    MAX_REQUEST_BODY is kept in memory; a larger one (documents) goes to a temporary file past
    that size, read a piece at a time."""
    if size <= settings.MAX_REQUEST_BODY + 1:
        body = stream.read(size)
        return io.BytesIO(body), len(body)
    spool = tempfile.SpooledTemporaryFile(max_size=settings.MAX_REQUEST_BODY)
    remaining = size
    while remaining:
        piece = stream.read(min(remaining, 65536))
        if not piece:
            break
        spool.write(piece)
        remaining -= len(piece)
    length = spool.tell()
    spool.seek(0)
    return spool, length


def _body_timed_out(environ, start_response, exc: OSError):
    # Not at the top: config/wsgi.py imports this module before the settings are loaded, and
    # core.api.errors reads them as it is imported (through core.errors' translated messages).
    from core.api.errors import raw_error

    rid, data, headers = raw_error(
        type="invalid_request_error",
        code="request_timeout",
        message="The request body stopped arriving before it was complete.",
    )
    logger.warning(
        "408 request_timeout on %s %s (request_id=%s): the body stopped arriving (%s)",
        environ.get("REQUEST_METHOD"),
        environ.get("PATH_INFO"),
        rid,
        type(exc).__name__,
    )
    start_response("408 Request Timeout", headers)
    return [data]


def declared_length(request) -> int:
    """The body size the client announces (Content-Length), 0 when absent or malformed: what
    Django then reads. A body without one is capped where it is read."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _refusal(request):
    from core.api.errors import error_response, request_too_large_response  # as above

    if declared_length(request) > body_limit(request.path_info):
        return request_too_large_response(request, body_limit(request.path_info))
    if "\x00" in request.path or any(
        "\x00" in key or "\x00" in value for key, values in request.GET.lists() for value in values
    ):
        # No identifier or filter contains one, and no column can store one.
        return error_response(
            request,
            400,
            type="invalid_request_error",
            code="parameter_invalid",
            message=gettext("The URL must not contain NUL characters."),
        )
    return None


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.request_id = request_id()
        # Refused before the language middlewares have run: said in the request's language here.
        with translation.override(request_language(request)):
            refusal = _refusal(request)
        response = refusal or self.get_response(request)
        response["Request-Id"] = request.request_id
        return response

    def process_exception(self, request, exception):
        from core.api.errors import (  # as above
            UNAVAILABLE,
            error_response,
            internal_error_response,
            log_unavailable,
            page_error,
            request_too_large_response,
            service_unavailable_response,
        )

        # Any path (callbacks, card replies, forms): refusals of the body, never a 500.
        if isinstance(exception, RequestDataTooBig):
            return request_too_large_response(request)
        if isinstance(exception, UNREADABLE_FORM):
            return error_response(
                request,
                400,
                type="invalid_request_error",
                code="parameter_invalid",
                message=f"The request body is not a readable form ({exception}).",
            )
        if not request.path.startswith("/v1"):
            if isinstance(exception, UNAVAILABLE) and not request.path.startswith("/admin"):
                log_unavailable(request, exception)
                return page_error(request, 503)
            return None
        if isinstance(exception, UNAVAILABLE):
            return service_unavailable_response(request, exception)
        logger.exception(
            "Unhandled error on %s %s (request_id=%s)",
            request.method,
            request.path,
            getattr(request, "request_id", None),
        )
        return internal_error_response(request)


def _is_api(request) -> bool:
    return request.path == "/v1" or request.path.startswith("/v1/")


def request_language(request) -> str:
    """The language a request is answered in: api_language under /v1, else the hosted pages'
    choice (Accept-Language, French by default)."""
    if _is_api(request):
        return api_language(request)
    return translation.get_language_from_request(request)


class ApiLanguageMiddleware:
    """One language per /v1 request, DRF's own messages included (after LocaleMiddleware)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if _is_api(request):
            language = api_language(request)
            translation.activate(language)
            request.LANGUAGE_CODE = language
        return self.get_response(request)
