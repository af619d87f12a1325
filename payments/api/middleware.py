"""Request-Id on every response, and JSON (never a traceback) for any unhandled error under /v1."""

import logging

from payments.ids import request_id

logger = logging.getLogger("payments.api")


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request.request_id = request_id()
        response = self.get_response(request)
        response["Request-Id"] = request.request_id
        return response

    def process_exception(self, request, exception):
        if not request.path.startswith("/v1"):
            return None
        from payments.api.errors import internal_error_response

        logger.exception(
            "Unhandled error on %s %s (request_id=%s)",
            request.method,
            request.path,
            getattr(request, "request_id", None),
        )
        return internal_error_response(request)
