"""How /v1 is described in its OpenAPI document (/v1/openapi.json, read at /v1/docs).

Every operation documents the errors it can answer, all in the one error envelope: 400, 401 and
429 everywhere, 404 on a path naming an object, 409 on a POST, and 403 where an operation
declares it (`errors(403)`); and everywhere what the deployed nginx (deploy/nginx/) or the service
answers before any view: 413, 414, 431, and 502, 503, 504 while the service is out of reach.
Every POST documents its Idempotency-Key header."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import build_examples_list, build_media_type_object
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from core.api import idempotency

ERROR_TYPES = [
    "invalid_request_error",
    "authentication_error",
    "permission_error",
    "idempotency_error",
    "rate_limit_error",
    "api_error",
]


class ErrorDetail(serializers.Serializer):
    type = serializers.ChoiceField(choices=ERROR_TYPES, help_text="The kind of error.")
    code = serializers.CharField(
        help_text="What went wrong, as a stable code to branch on (parameter_missing, "
        "amount_invalid, resource_missing, …)."
    )
    message = serializers.CharField(
        help_text="The error in words, in English, or in French when Accept-Language asks "
        "for it. Show it to people; do not parse it."
    )
    param = serializers.CharField(
        allow_null=True, help_text="The parameter or header at fault, when there is one."
    )
    request_id = serializers.CharField(
        allow_null=True, help_text="Also in the Request-Id header: quote it to support."
    )


class Error(serializers.Serializer):
    """Every error, whatever the status."""

    error = ErrorDetail()


def _error_example(status: int, type: str, code: str, message: str, param=None):
    return OpenApiExample(
        code,
        value={
            "error": {
                "type": type,
                "code": code,
                "message": message,
                "param": param,
                "request_id": "req_8Jq2mV0cXw4LbT1sYfN6aKpE",
            }
        },
        response_only=True,
        status_codes=[str(status)],
    )


ERRORS = {
    400: (
        "The request is refused: `error.code` says why (parameter_missing, parameter_invalid, "
        "parameter_unknown, amount_invalid, currency_not_supported, phone_invalid, "
        "url_invalid, invalid_json, idempotency_key_reused, …).",
        [
            _error_example(
                400,
                "invalid_request_error",
                "parameter_missing",
                "Missing required param: currency.",
                "currency",
            ),
            _error_example(
                400,
                "invalid_request_error",
                "amount_invalid",
                "amount must be a JSON integer in the smallest currency unit (e.g. 1000 = 10.00).",
                "amount",
            ),
        ],
    ),
    401: (
        "No API key was sent (missing_api_key), or it is not a valid one (invalid_api_key).",
        [
            _error_example(
                401,
                "authentication_error",
                "missing_api_key",
                "No API key provided. Send it as 'Authorization: Bearer <API_KEY>'.",
            )
        ],
    ),
    403: (
        "This account may not do this (live_mode_not_approved, card_rail_disabled, "
        "api_payouts_disabled).",
        [
            _error_example(
                403,
                "permission_error",
                "live_mode_not_approved",
                "This account is not yet approved for live payments.",
            )
        ],
    ),
    404: (
        "No such object for this key's merchant and mode (resource_missing).",
        [
            _error_example(
                404,
                "invalid_request_error",
                "resource_missing",
                "No such charge: 'ch_4fQm2Lr8TzVb6NcXw1JkHs0P'.",
            )
        ],
    ),
    409: (
        "A request with the same Idempotency-Key is still running (idempotency_key_in_use): "
        "retry in a moment to get its answer.",
        [
            _error_example(
                409,
                "idempotency_error",
                "idempotency_key_in_use",
                "A request with this Idempotency-Key is still being processed. Retry after it "
                "completes.",
            )
        ],
    ),
    413: (
        "The body is larger than the service accepts (request_too_large).",
        [
            _error_example(
                413,
                "invalid_request_error",
                "request_too_large",
                "The request body is larger than 1048576 bytes.",
            )
        ],
    ),
    414: (
        "The request line (path and query) is longer than 4 KB (request_invalid): send long "
        "values in the body.",
        [
            _error_example(
                414,
                "invalid_request_error",
                "request_invalid",
                "The request line is longer than 4 KB: send long values in the body.",
            )
        ],
    ),
    431: (
        "A header line is longer than 4 KB (request_invalid).",
        [
            _error_example(
                431,
                "invalid_request_error",
                "request_invalid",
                "A header line is longer than 4 KB.",
            )
        ],
    ),
    429: (
        "Too many requests (rate_limited): retry after the seconds of the Retry-After header.",
        [
            _error_example(
                429,
                "rate_limit_error",
                "rate_limited",
                "Too many requests. Retry after 1 seconds.",
            )
        ],
    ),
    503: (
        "The service is briefly unavailable (service_unavailable): retry after the seconds of the "
        "Retry-After header, with the same Idempotency-Key. On a payment, also: the network is "
        "closed for now (network_unavailable), or no provider is connected for it in this mode "
        "yet (provider_unavailable): retry later.",
        [
            _error_example(
                503,
                "api_error",
                "service_unavailable",
                "The service is briefly unavailable. Retry in a moment: a retry with the same "
                "Idempotency-Key is always safe.",
            ),
            _error_example(
                503,
                "api_error",
                "provider_unavailable",
                "The payment provider is unavailable. Please retry later.",
            ),
        ],
    ),
}


# The service out of reach behind its proxy (502: not answering, 504: answering too late): as
# 503, a retry with the same Idempotency-Key is safe.
for _status in (502, 504):
    ERRORS[_status] = (
        "The service did not answer its proxy in time or at all (service_unavailable): retry "
        "after the seconds of the Retry-After header, with the same Idempotency-Key.",
        [
            _error_example(
                _status,
                "api_error",
                "service_unavailable",
                "The service is briefly unavailable. Retry in a moment: a retry with the same "
                "Idempotency-Key is always safe.",
            )
        ],
    )


def errors(*statuses: int) -> dict[int, OpenApiResponse]:
    """The documented error responses of `statuses`."""
    return {
        status: OpenApiResponse(Error, description=ERRORS[status][0], examples=ERRORS[status][1])
        for status in statuses
    }


IDEMPOTENCY_KEY = OpenApiParameter(
    "Idempotency-Key",
    {
        "type": "string",
        "minLength": 1,
        "maxLength": idempotency.MAX_KEY_LENGTH,
        "pattern": idempotency.KEY_PATTERN,
    },
    OpenApiParameter.HEADER,
    description=(
        "1–255 printable ASCII characters (a UUID v4 is recommended). A retry with the same key "
        "and body within 24 hours gets the first answer again, with `Idempotent-Replayed: true`, "
        "and nothing is done twice."
    ),
)


class ApiSchema(AutoSchema):
    """Adds to every operation the Idempotency-Key header of a POST and the error responses it
    can answer."""

    def get_override_parameters(self):
        parameters = super().get_override_parameters()
        if self.method == "POST":
            parameters = [IDEMPOTENCY_KEY, *parameters]
        return parameters

    def error_statuses(self) -> list[int]:
        # 503: the database briefly out of reach, on any of them; 413, 414, 431, 502, 504: the
        # deployed nginx's own answers (deploy/nginx/), on any of them.
        statuses = [400, 401, 413, 414, 429, 431, 502, 503, 504]
        if "{" in self.path:
            statuses.append(404)
        if self.method == "POST":
            statuses.append(409)
        return statuses

    def get_operation(self, *args, **kwargs):
        operation = super().get_operation(*args, **kwargs)
        if operation is None:  # excluded from the document
            return None
        responses = operation["responses"]
        for status in self.error_statuses():
            if str(status) not in responses:  # what the operation declares itself stays
                responses[str(status)] = self.error_response(status)
        operation["responses"] = dict(sorted(responses.items()))
        return operation

    def error_response(self, status: int) -> dict:
        """The response object of `status`: the error envelope, with its examples after those the
        operation gives for that status (`extend_schema(examples=[...])`)."""
        description, examples = ERRORS[status]
        own = [
            example
            for example in self.get_examples()
            if not example.request_only and str(status) in map(str, example.status_codes or ())
        ]
        schema = self.resolve_serializer(Error, "response").ref
        media_type = build_media_type_object(schema, build_examples_list([*own, *examples]))
        return {"content": {"application/json": media_type}, "description": description}


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "core.api.authentication.ApiKeyAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "bearerFormat": "sk_test_… or sk_live_…",
            "description": (
                "Your secret API key: sk_test_… for test mode, sk_live_… for live mode. Each "
                "key sees only its own mode's objects."
            ),
        }
