"""The checkout session object and its list, as the OpenAPI document describes them (the bodies
are built by checkout/representations.py), with the examples the API reference shows."""

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from checkout.models import SessionStatus
from core.api import schemas
from core.api.fields import MetadataField
from payments.models import PaymentMethod


class CheckoutSession(serializers.Serializer):
    """A payment page hosted by the service: send the customer to `url`."""

    id = serializers.CharField(help_text="cs_ followed by 24 characters.")
    object = schemas.object_field("checkout.session")
    livemode = schemas.livemode_field()
    url = serializers.URLField(help_text="The payment page to send the customer to.")
    amount = schemas.amount_field()
    currency = schemas.currency_field()
    status = serializers.ChoiceField(
        choices=SessionStatus.values,
        help_text="open, then complete (a charge succeeded) or expired.",
    )
    success_url = serializers.CharField(help_text="Where the customer goes after paying.")
    cancel_url = serializers.CharField(help_text="Where the customer goes to give up.")
    metadata = MetadataField()
    customer_phone = serializers.CharField(allow_null=True)
    customer_email = serializers.CharField(allow_null=True)
    payment_methods = serializers.ListField(
        child=serializers.ChoiceField(choices=PaymentMethod.values),
        help_text="What the page offers, in this order.",
    )
    charge = serializers.CharField(
        allow_null=True, help_text="The succeeded charge, once the session is complete."
    )
    payment_link = serializers.CharField(
        allow_null=True, help_text="The payment link the session was opened from, if any."
    )
    created_at = schemas.timestamp_field()
    expires_at = schemas.timestamp_field()


CheckoutSessionList = schemas.list_envelope(CheckoutSession, "CheckoutSessionList")

SESSION = {
    "id": "cs_3NvB7kQx1ZmT9cLw5RpY2hDs",
    "object": "checkout.session",
    "livemode": False,
    "url": "https://pay.example.cd/pay/cs_3NvB7kQx1ZmT9cLw5RpY2hDs",
    "amount": 250000,
    "currency": "CDF",
    "status": "open",
    "success_url": "https://shop.example.cd/merci?order=42&cs={CHECKOUT_SESSION_ID}",
    "cancel_url": "https://shop.example.cd/panier",
    "metadata": {"order": "42"},
    "customer_phone": "+243812345678",
    "customer_email": None,
    "payment_methods": ["mobile_money"],
    "charge": None,
    "payment_link": None,
    "created_at": "2026-11-21T09:30:12.482913Z",
    "expires_at": "2026-11-22T09:30:12.482913Z",
}
SESSION_CREATE = [
    OpenApiExample(
        "Checkout session",
        value={
            "amount": 250000,
            "currency": "CDF",
            "success_url": SESSION["success_url"],
            "cancel_url": SESSION["cancel_url"],
            "customer_phone": "+243812345678",
            "metadata": {"order": "42"},
        },
        request_only=True,
    ),
    OpenApiExample("Open session", value=SESSION, response_only=True, status_codes=["201"]),
]
SESSION_RETRIEVE = [
    OpenApiExample("Open session", value=SESSION, response_only=True, status_codes=["200"])
]
SESSION_LIST = [
    OpenApiExample(
        "Checkout sessions",
        value={
            "object": "list",
            "url": "/v1/checkout/sessions",
            "data": [SESSION],
            "has_more": False,
            "limit": 10,
            "offset": 0,
        },
        response_only=True,
        status_codes=["200"],
    )
]
