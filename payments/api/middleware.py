"""Request-Id on every response; requests no view can take refused up front (a body over
MAX_REQUEST_BODY → 413, a NUL character in the URL → 400); JSON (never a traceback) for any
unhandled error under /v1."""

import io
import logging

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http.multipartparser import MultiPartParserError
from django.utils import translation
from django.utils.translation import gettext

from payments.ids import request_id

logger = logging.getLogger("payments.api")

# Raised while a view reads a form body that cannot be read: refused, never a 500.
UNREADABLE_FORM = (TooManyFieldsSent, TooManyFilesSent, MultiPartParserError)


def chunked_bodies(app):
    """The WSGI application `app`, taking bodies sent without a Content-Length (Transfer-Encoding:
    chunked) as well. Django reads a body only as long as CONTENT_LENGTH says, so such a body
    would be read as empty (a charge sent so answered "Missing required param: amount"). Where
    the server says the input ends with the body (PEP 3333's wsgi.input_terminated: gunicorn
    decodes the chunks), it is read here up to MAX_REQUEST_BODY + 1 bytes and handed on with its
    length: a longer one is then refused with 413 like any other."""

    def application(environ, start_response):
        if (
            not environ.get("CONTENT_LENGTH")
            and environ.get("wsgi.input_terminated")
            and "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        ):
            body = environ["wsgi.input"].read(settings.MAX_REQUEST_BODY + 1)
            environ["wsgi.input"] = io.BytesIO(body)
            environ["CONTENT_LENGTH"] = str(len(body))
        return app(environ, start_response)

    return application


def declared_length(request) -> int:
    """The body size the client announces (Content-Length), 0 when absent or malformed: what
    Django then reads. A body without one is capped where it is read."""
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _refusal(request):
    from payments.api.errors import error_response, request_too_large_response

    if declared_length(request) > settings.MAX_REQUEST_BODY:
        return request_too_large_response(request)
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
        from payments.api.errors import (
            error_response,
            internal_error_response,
            request_too_large_response,
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
            return None
        logger.exception(
            "Unhandled error on %s %s (request_id=%s)",
            request.method,
            request.path,
            getattr(request, "request_id", None),
        )
        return internal_error_response(request)


def api_language(request) -> str:
    """The language of /v1 answers: French when the client's Accept-Language prefers it, English
    otherwise (the hosted pages keep French as their default)."""
    from django.utils.translation.trans_real import parse_accept_lang_header

    for tag, quality in parse_accept_lang_header(request.META.get("HTTP_ACCEPT_LANGUAGE", "")):
        if quality <= 0:
            continue
        primary = tag.split("-")[0].lower()
        if primary in ("fr", "en"):
            return primary
    return "en"


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
