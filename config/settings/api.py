"""The /v1 API: Django REST framework (authentication by API key, parsers, renderers, the rate
per key, the one error handler), the idempotency store, who a key is and how long a process
trusts it, and the OpenAPI description (drf-spectacular)."""

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import env

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["core.api.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["core.api.authentication.HasApiKey"],
    "DEFAULT_PARSER_CLASSES": ["core.api.parsers.JsonObjectParser"],
    "DEFAULT_RENDERER_CLASSES": ["core.api.renderers.JsonRenderer"],
    "DEFAULT_THROTTLE_CLASSES": ["core.api.throttling.ApiKeyRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"api_key": env.str("API_RATE_LIMIT", default="100/s")},
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.api.renderers.JsonOnlyNegotiation",
    "EXCEPTION_HANDLER": "core.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "core.api.openapi.ApiSchema",
    "UNAUTHENTICATED_USER": None,
}
# The model that stores the answers to POSTs made with an Idempotency-Key (core/api/idempotency.py).
IDEMPOTENCY_RECORD_MODEL = "payments.IdempotencyRecord"
# Who an API key is (core/api/authentication.py): the key's merchant and mode, from its hash.
API_KEY_RESOLVER = "payments.api.principals.resolve"
# Seconds a web process trusts an API key it has read before reading it again: a revoked key is
# refused by every process within this, whatever Redis and the broker do
# (payments/api/principals.py).
API_KEY_CACHE_SECONDS = env.float("API_KEY_CACHE_SECONDS", default=3.0)
if not 0 <= API_KEY_CACHE_SECONDS <= 4:
    raise ImproperlyConfigured("API_KEY_CACHE_SECONDS must be between 0 and 4.")


SPECTACULAR_SETTINGS = {
    "TITLE": "Payments API",
    "DESCRIPTION": (
        "Collect mobile money (Airtel Money, Vodacom M-Pesa, Orange Money) and card payments in "
        "CDF and USD, refund them, pay out, and follow everything by signed webhooks.\n\n"
        "Authenticate with `Authorization: Bearer sk_test_…` (test mode) or `sk_live_…` (live "
        "mode). Send JSON bodies (`Content-Type: application/json`); amounts are integers in the "
        "smallest currency unit. Every POST accepts an `Idempotency-Key` header: retry with the "
        "same key and nothing is done twice.\n\n"
        'Every error has the same shape, `{"error": {type, code, message, param, '
        "request_id}}`: branch on `code`, show `message` (English, or French with "
        "`Accept-Language: fr`). A method a path does not have is answered 405 "
        "method_not_allowed. Every response carries a `Request-Id` header."
    ),
    "VERSION": "1",
    "TAGS": [
        {"name": "Charges", "description": "Payments taken by mobile money or card."},
        {"name": "Refunds", "description": "Money given back on a succeeded charge."},
        {"name": "Payouts", "description": "Money sent from your balance to a mobile wallet."},
        {"name": "Balance", "description": "What is available, and every movement of it."},
        {"name": "Networks", "description": "The mobile money networks: status and limits."},
        {"name": "Checkout sessions", "description": "Payment pages hosted for you."},
        {
            "name": "Payment links",
            "description": "Links to share (a message, a QR code) that open a payment page.",
        },
        {"name": "Webhooks", "description": "Where events go, and what was sent."},
        {
            "name": "Test helpers",
            "description": "What test mode keeps for you to check: the text messages it would "
            "have sent.",
        },
    ],
    "ENUM_NAME_OVERRIDES": {
        "Currency": "payments.models.Currency.values",
        "MobileMoneyNetwork": "payments.models.Network.values",
        "PaymentMethod": "payments.models.PaymentMethod.values",
        "ChargeStatus": "payments.models.ChargeStatus.values",
        # Refunds, payouts and deliveries share these three.
        "ProcessingStatus": "payments.models.RefundStatus.values",
        "RefundReason": "payments.models.RefundReason.values",
        "RefundRequestReason": "payments.models.MERCHANT_REFUND_REASONS",
        "BalanceTransactionType": "payments.models.LedgerType.values",
        "CheckoutSessionStatus": "checkout.models.SessionStatus.values",
        "EventType": "webhooks.models.EventType.values",
        "ErrorType": "core.api.openapi.ERROR_TYPES",
        # The `object` of each kind of object: one value each, so that a client (and a schema
        # validator) tells a charge from a payout at once.
        "ChargeObject": ["charge"],
        "RefundObject": ["refund"],
        "PayoutObject": ["payout"],
        "BalanceObject": ["balance"],
        "BalanceTransactionObject": ["balance_transaction"],
        "CheckoutSessionObject": ["checkout.session"],
        "PaymentLinkObject": ["payment_link"],
        "EventObject": ["event"],
        "DeliveryObject": ["delivery"],
        "WebhookEndpointObject": ["webhook_endpoint"],
        "ListObject": ["list"],
        "NetworkObject": ["network"],
        "NetworkPredictionObject": ["network_prediction"],
        "NetworkStatus": ["operational", "degraded", "closed"],
        "NextActionType": ["provider_redirect"],
        "FeeType": ["processing_fee", "payout_fee", "settlement_fee"],
        "PricingKind": "payments.models.PricingKind.values",
        "SettlementAccountType": "payments.models.SettlementAccountType.values",
        "SettlementStatus": "payments.models.SettlementStatus.values",
        "SettlementMethod": "payments.models.SettlementMethod.values",
        "SettlementObject": ["settlement"],
        "SettlementAccountObject": ["settlement_account"],
        "PricingObject": ["pricing"],
        "MessageObject": ["message"],
        "MessageKind": ["receipt", "notification"],
        "MessageStatus": ["queued", "sent", "delivered", "failed"],
    },
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    "ENUM_ADD_EXPLICIT_BLANK_NULL_CHOICE": False,
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": r"/v1",
}
