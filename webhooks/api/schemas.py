"""The webhook endpoint, events and deliveries as the OpenAPI document describes them (the bodies
are built by webhooks/representations.py and webhooks/api/views.py), with the examples the API
reference shows."""

from drf_spectacular.utils import OpenApiExample, PolymorphicProxySerializer
from rest_framework import serializers

from batches.api.schemas import PayoutBatch
from checkout.api.schemas import SESSION, CheckoutSession
from core.api import examples, schemas
from payments.examples import CHARGE
from payments.schemas import Charge, Payout, Refund, Settlement
from webhooks.models import DeliveryStatus, EventType


class WebhookEndpoint(serializers.Serializer):
    """Where this mode's events are sent by default, and the secret that signs them."""

    object = schemas.object_field("webhook_endpoint")
    livemode = schemas.livemode_field()
    url = serializers.URLField(allow_null=True, help_text="null: events are kept, not sent.")
    secret = serializers.CharField(help_text="whsec_… secret that signs this mode's deliveries.")
    previous_secret_expires_at = serializers.DateTimeField(
        allow_null=True,
        help_text="Until then the secret replaced by the last rotation also signs deliveries.",
    )


class EventData(serializers.Serializer):
    object = PolymorphicProxySerializer(
        component_name="EventDataObject",
        serializers={
            "charge": Charge,
            "refund": Refund,
            "payout": Payout,
            "settlement": Settlement,
            "checkout.session": CheckoutSession,
            "payout_batch": PayoutBatch,
        },
        resource_type_field_name="object",
        help_text="The object as it was right after the change.",
    )


class Event(serializers.Serializer):
    """Something that happened to one of your objects; also the body of each webhook delivery."""

    id = serializers.CharField(help_text="evt_ followed by 24 characters; the same on resends.")
    object = schemas.object_field("event")
    type = serializers.ChoiceField(choices=EventType.values)
    livemode = schemas.livemode_field()
    created_at = schemas.timestamp_field()
    data = EventData()


class DeliveryAttempt(serializers.Serializer):
    attempted_at = schemas.timestamp_field()
    url = serializers.CharField()
    status_code = serializers.IntegerField(
        allow_null=True, help_text="Your endpoint's HTTP status; null when it gave none."
    )
    error = serializers.CharField(
        allow_null=True, help_text="Why no 2xx came back (timeout, refused address, …)."
    )
    duration_ms = serializers.IntegerField(min_value=0)


class Delivery(serializers.Serializer):
    """One event on its way to one URL, retried on a schedule until it succeeds or fails."""

    object = schemas.object_field("delivery")
    livemode = schemas.livemode_field()
    event_id = serializers.CharField()
    url = serializers.CharField()
    status = serializers.ChoiceField(choices=DeliveryStatus.values)
    created_at = schemas.timestamp_field()
    next_attempt_at = schemas.timestamp_field(allow_null=True, help_text="null once final.")
    delivered_at = schemas.timestamp_field(allow_null=True, help_text="null until a 2xx answer.")
    attempts = DeliveryAttempt(many=True, help_text="Oldest first.")


EventList = schemas.list_envelope(Event, "EventList")
DeliveryList = schemas.list_envelope(Delivery, "DeliveryList")

ENDPOINT = {
    "object": "webhook_endpoint",
    "livemode": False,
    "url": "https://shop.example.cd/hooks",
    "secret": "whsec_QUJDREVGR0hJSktMTU5PUFFSU1RVVldY",
    "previous_secret_expires_at": None,
}
EVENT = {
    "id": "evt_6TpK1wZq8NbV3mLx0RcJ5sYh",
    "object": "event",
    "type": "charge.succeeded",
    "livemode": False,
    "created_at": "2026-11-21T09:30:19.107254Z",
    "data": {"object": CHARGE},
}
DELIVERY = {
    "object": "delivery",
    "livemode": False,
    "event_id": EVENT["id"],
    "url": "https://shop.example.cd/hooks",
    "status": "succeeded",
    "created_at": "2026-11-21T09:30:19.107254Z",
    "next_attempt_at": None,
    "delivered_at": "2026-11-21T09:30:19.391005Z",
    "attempts": [
        {
            "attempted_at": "2026-11-21T09:30:19.204733Z",
            "url": "https://shop.example.cd/hooks",
            "status_code": 200,
            "error": None,
            "duration_ms": 186,
        }
    ],
}


def _answer(name: str, value: dict) -> OpenApiExample:
    return OpenApiExample(name, value=value, response_only=True, status_codes=["200"])


ENDPOINT_EXAMPLES = [_answer("Webhook endpoint", ENDPOINT)]
ENDPOINT_UPDATE = [
    OpenApiExample("Set the URL", value={"url": ENDPOINT["url"]}, request_only=True),
    OpenApiExample("Stop sending", value={"url": None}, request_only=True),
    _answer("Webhook endpoint", ENDPOINT),
]
EVENT_RETRIEVE = [
    _answer("charge.succeeded", EVENT),
    _answer(
        "checkout.session.completed",
        {
            **EVENT,
            "id": "evt_1QwE9rTy4UiO7pAs2DfG5hJk",
            "type": "checkout.session.completed",
            "data": {"object": {**SESSION, "status": "complete", "charge": CHARGE["id"]}},
        },
    ),
]
EVENT_LIST = [_answer("Events", examples.page("/v1/events", EVENT))]
DELIVERY_LIST = [
    _answer(
        "Deliveries",
        examples.page(f"/v1/events/{EVENT['id']}/deliveries", DELIVERY),
    )
]
DELIVERY_EXAMPLES = [
    _answer("Delivery", {**DELIVERY, "status": "pending", "delivered_at": None, "attempts": []})
]
