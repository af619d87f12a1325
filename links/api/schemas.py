"""The payment link object and its list, as the OpenAPI document describes them (the bodies are
built by links/representations.py), with the examples the API reference shows."""

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from core.api import schemas
from core.api.fields import MetadataField


class PaymentLink(serializers.Serializer):
    """A link to share (a message, a QR code): each customer who opens `url` pays on a checkout
    session of their own."""

    id = serializers.CharField(help_text="plink_ followed by 24 characters.")
    object = schemas.object_field("payment_link")
    livemode = schemas.livemode_field()
    url = serializers.URLField(help_text="The public page to share: /pay/{slug}.")
    qr_code_url = serializers.URLField(help_text="A QR code of `url` (SVG; .png for a PNG).")
    active = serializers.BooleanField(help_text="false once deactivated.")
    amount = schemas.amount_field(allow_null=True, help_text="null when custom_amount is true.")
    custom_amount = serializers.BooleanField(help_text="Whether the customer types the amount.")
    currency = schemas.currency_field()
    description = serializers.CharField(help_text="What is sold.")
    max_payments = serializers.IntegerField(
        allow_null=True, min_value=1, help_text="How many payments the link takes at most."
    )
    payments_count = serializers.IntegerField(
        min_value=0, help_text="Completed checkout sessions of the link."
    )
    expires_at = schemas.timestamp_field(allow_null=True)
    success_url = serializers.CharField(allow_null=True)
    metadata = MetadataField()
    created_at = schemas.timestamp_field()


PaymentLinkList = schemas.list_envelope(PaymentLink, "PaymentLinkList")

LINK = {
    "id": "plink_8FqT2mVx9LcR4kWz7NbY3pHs",
    "object": "payment_link",
    "livemode": False,
    "url": "https://pay.example.cd/pay/Xq7Lm2Rt9VbK4wPz8HcN3d",
    "qr_code_url": "https://pay.example.cd/pay/Xq7Lm2Rt9VbK4wPz8HcN3d/qr.svg",
    "active": True,
    "amount": 1500000,
    "custom_amount": False,
    "currency": "CDF",
    "description": "Sac de riz 25 kg",
    "max_payments": 20,
    "payments_count": 0,
    "expires_at": "2026-12-31T23:59:59.000000Z",
    "success_url": None,
    "metadata": {"stock": "riz-25"},
    "created_at": "2026-11-21T09:30:12.482913Z",
}
LINK_CREATE = [
    OpenApiExample(
        "Fixed amount",
        value={
            "amount": 1500000,
            "currency": "CDF",
            "description": "Sac de riz 25 kg",
            "max_payments": 20,
            "expires_at": "2026-12-31T23:59:59Z",
            "metadata": {"stock": "riz-25"},
        },
        request_only=True,
    ),
    OpenApiExample(
        "Customer's amount",
        value={"custom_amount": True, "currency": "USD", "description": "Don à l'école"},
        request_only=True,
    ),
    OpenApiExample("Payment link", value=LINK, response_only=True, status_codes=["201"]),
]
LINK_RETRIEVE = [
    OpenApiExample("Payment link", value=LINK, response_only=True, status_codes=["200"])
]
LINK_UPDATE = [
    OpenApiExample("Deactivate", value={"active": False}, request_only=True),
    OpenApiExample(
        "Deactivated link",
        value={**LINK, "active": False},
        response_only=True,
        status_codes=["200"],
    ),
]
LINK_LIST = [
    OpenApiExample(
        "Payment links",
        value={
            "object": "list",
            "url": "/v1/payment_links",
            "data": [LINK],
            "has_more": False,
            "limit": 10,
            "offset": 0,
        },
        response_only=True,
        status_codes=["200"],
    )
]
