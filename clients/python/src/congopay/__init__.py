"""CongoPay's Python library: mobile money and card payments in the DR Congo.

import congopay

client = congopay.Congopay(api_key="sk_test_…", base_url="https://pay.example.cd")
charge = client.charges.create(
    amount=250000, currency="CDF", phone="+243812345678", network="VODACOM_MPESA"
)
"""

from . import types
from .client import Congopay
from .errors import (
    APIConnectionError,
    APIError,
    APITimeoutError,
    AuthenticationError,
    CongopayError,
    IdempotencyError,
    InvalidRequestError,
    PermissionDeniedError,
    RateLimitError,
    ServiceError,
    WebhookVerificationError,
)
from .pagination import Page
from .transport import VERSION as __version__

__all__ = [
    "APIConnectionError",
    "APIError",
    "APITimeoutError",
    "AuthenticationError",
    "Congopay",
    "CongopayError",
    "IdempotencyError",
    "InvalidRequestError",
    "Page",
    "PermissionDeniedError",
    "RateLimitError",
    "ServiceError",
    "WebhookVerificationError",
    "__version__",
    "types",
]
