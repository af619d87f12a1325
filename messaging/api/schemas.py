"""The message object and its list, as the OpenAPI document describes them (the bodies are
built by messaging/representations.py)."""

from drf_spectacular.utils import OpenApiExample
from rest_framework import serializers

from core.api import schemas


class Message(serializers.Serializer):
    """A text message a customer (a receipt) or a member (a notification) would get. Test mode
    sends none: its messages are kept, `sent`, to be read here."""

    id = serializers.CharField(help_text="sms_ followed by 24 characters.")
    object = schemas.object_field("message")
    livemode = schemas.livemode_field()
    to = serializers.CharField(help_text="The phone, E.164 (+243…).")
    body = serializers.CharField(help_text="The text, as the phone shows it.")
    kind = serializers.ChoiceField(choices=["receipt", "notification"])
    status = serializers.ChoiceField(
        choices=["queued", "sent", "delivered", "failed"],
        help_text="A kept test message is `sent`.",
    )
    created_at = schemas.timestamp_field()


MessageList = schemas.list_envelope(Message, "MessageList")

MESSAGE = {
    "id": "sms_4kWz7NbY3pHs8FqT2mVx9LcR",
    "object": "message",
    "livemode": False,
    "to": "+243812345678",
    "body": "Paiement de 15 000 CDF à Boutique Lumière confirmé. Réf. MP241121.1030.A12345. "
    "Détails : https://pay.example.cd/r/Xq7Lm2Rt9VbK4wPz8HcN3d",
    "kind": "receipt",
    "status": "sent",
    "created_at": "2026-11-21T09:30:12.482913Z",
}
MESSAGE_LIST = [
    OpenApiExample(
        "Test messages",
        value={
            "object": "list",
            "url": "/v1/test_helpers/messages",
            "data": [MESSAGE],
            "has_more": False,
            "limit": 10,
            "offset": 0,
        },
        response_only=True,
        status_codes=["200"],
    )
]
