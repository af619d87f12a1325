"""The pieces every app's objects are described with in the OpenAPI document: the fields each
object shares (`object`, `livemode`, amounts, currencies, timestamps, failures, phone numbers) and
the list envelope of every list. Each app's objects are in its own schemas module
(payments/schemas.py, checkout/api/schemas.py, …); the error envelope is in core/api/openapi.py.

These serializers only describe; the bodies are built by each app's representations.py."""

from rest_framework import serializers

from core.api.fields import AMOUNT_MAX
from core.api.pagination import MAX_LIMIT
from core.money import Currency


def object_field(name: str) -> serializers.ChoiceField:
    """The `object` field that names what an object is (one value per kind of object)."""
    return serializers.ChoiceField(choices=[name], help_text=f'Always "{name}".')


def livemode_field() -> serializers.BooleanField:
    return serializers.BooleanField(help_text="true for a live key's object, false in test mode.")


def amount_field(
    help_text: str = "In the smallest currency unit (250000 = 2 500.00 CDF).", **kwargs
):
    return serializers.IntegerField(
        min_value=kwargs.pop("min_value", 1), max_value=AMOUNT_MAX, help_text=help_text, **kwargs
    )


def currency_field() -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=Currency.values)


def timestamp_field(help_text: str = "", **kwargs) -> serializers.DateTimeField:
    return serializers.DateTimeField(help_text=help_text or "ISO 8601, UTC.", **kwargs)


def failure_code_field() -> serializers.CharField:
    return serializers.CharField(
        allow_null=True,
        help_text="Why it failed, as a stable code (insufficient_funds, customer_rejected, "
        "timeout, provider_error, card_declined, …); null unless failed or declined.",
    )


def failure_message_field() -> serializers.CharField:
    return serializers.CharField(
        allow_null=True, help_text="The failure in words, for people; null unless failed."
    )


def phone_field(**kwargs) -> serializers.CharField:
    return serializers.CharField(
        help_text="The customer's number in E.164 format (+243 then 9 digits).", **kwargs
    )


def list_envelope(item, name: str, *, order: str = "newest first") -> type[serializers.Serializer]:
    """The list `{object: "list", url, data, has_more, limit, offset}` of `item` objects."""
    fields = {
        "__doc__": f"A page of {item.__name__} objects, {order}.",
        "object": object_field("list"),
        "url": serializers.CharField(help_text="The path that was asked."),
        "data": item(many=True),
        "has_more": serializers.BooleanField(help_text="Whether another page follows."),
        "limit": serializers.IntegerField(min_value=1, max_value=MAX_LIMIT),
        "offset": serializers.IntegerField(min_value=0),
    }
    return type(name, (serializers.Serializer,), fields)
