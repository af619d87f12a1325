"""Serializer building blocks shared by every /v1 endpoint, raising the contract's codes."""

from django.conf import settings
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail, ValidationError

from core.api.pagination import DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET
from core.carddata import find_card_data
from core.destinations import DestinationRefused, literal_address, split_url, url_refusal
from core.money import Currency

AMOUNT_MIN = 1
AMOUNT_MAX = 999_999_999_999
METADATA_MAX_KEYS = 50
METADATA_KEY_MAX = 40
METADATA_VALUE_MAX = 500
DESCRIPTION_MAX = 1000


class ContractCodeField(serializers.Field):
    """A field whose every bad value (null included) is refused with one contract code."""

    def validate_empty_values(self, data):
        if data is None:
            self.to_internal_value(data)
        return super().validate_empty_values(data)


@extend_schema_field(
    {
        "type": "integer",
        "format": "int64",
        "minimum": AMOUNT_MIN,
        "maximum": AMOUNT_MAX,
        "description": "In the smallest currency unit: 250000 is 2 500.00 CDF, 1999 is 19.99 USD.",
    }
)
class AmountField(ContractCodeField):
    """A JSON integer of minor units; booleans, floats, strings and null are refused."""

    def to_internal_value(self, data):
        if type(data) is not int:
            raise ValidationError(
                _(
                    "amount must be a JSON integer in the smallest currency unit (e.g. 1000 = 10.00)."
                ),
                code="amount_invalid",
            )
        if not AMOUNT_MIN <= data <= AMOUNT_MAX:
            raise ValidationError(
                _("amount must be between %(min)s and %(max)s.")
                % {"min": AMOUNT_MIN, "max": AMOUNT_MAX},
                code="amount_invalid",
            )
        return data

    def to_representation(self, value):
        return value


CURRENCIES = tuple(Currency.values)


@extend_schema_field({"type": "string", "enum": list(CURRENCIES)})
class CurrencyField(ContractCodeField):
    def to_internal_value(self, data):
        if type(data) is not str or data not in CURRENCIES:
            raise ValidationError(
                _("Unsupported currency %(currency)r: use one of %(currencies)s.")
                % {"currency": data, "currencies": ", ".join(CURRENCIES)},
                code="currency_not_supported",
            )
        return data

    def to_representation(self, value):
        return value


METADATA_SCHEMA = {
    "type": "object",
    "additionalProperties": {"type": "string", "maxLength": METADATA_VALUE_MAX},
    "maxProperties": METADATA_MAX_KEYS,
    "description": (
        f"Your own key-value pairs (at most {METADATA_MAX_KEYS} keys of 1 to {METADATA_KEY_MAX} "
        f"characters, string values of at most {METADATA_VALUE_MAX}), returned as given."
    ),
    "example": {"order": "42"},
}


@extend_schema_field(METADATA_SCHEMA, component_name="Metadata")
class MetadataField(serializers.Field):
    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise ValidationError(_("metadata must be an object."), code="parameter_invalid")
        if len(data) > METADATA_MAX_KEYS:
            raise ValidationError(
                _("metadata may have at most %(count)s keys.") % {"count": METADATA_MAX_KEYS},
                code="parameter_invalid",
            )
        for key, value in data.items():
            if not key or len(key) > METADATA_KEY_MAX:
                raise ValidationError(
                    _("metadata keys must be 1 to %(max)s characters.") % {"max": METADATA_KEY_MAX},
                    code="parameter_invalid",
                )
            if not isinstance(value, str) or len(value) > METADATA_VALUE_MAX:
                raise ValidationError(
                    _(
                        "metadata values must be strings of at most %(max)s characters (%(key)r is not)."
                    )
                    % {"max": METADATA_VALUE_MAX, "key": key},
                    code="parameter_invalid",
                )
        return data

    def to_representation(self, value):
        return value


class DescriptionField(serializers.CharField):
    """Free text: a JSON string (numbers and booleans are refused, not turned into text)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", DESCRIPTION_MAX)
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str):
            raise ValidationError(
                _("%(param)s must be a string.") % {"param": self.field_name},
                code="parameter_invalid",
            )
        return super().to_internal_value(data)


@extend_schema_field({"type": "string", "format": "uri", "maxLength": 2000})
class HttpUrlField(serializers.Field):
    """An absolute http(s) URL; https only in live mode (serializer context `livemode`).
    `destination=True`: a URL we will POST webhooks to, whose IP-literal host must be one that
    deliveries may call (core.destinations.url_refusal)."""

    def __init__(self, *, max_length: int = 2000, destination: bool = False, **kwargs):
        self.max_length = max_length
        self.destination = destination
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if not isinstance(data, str) or len(data) > self.max_length:
            raise ValidationError(_("Must be an absolute http(s) URL."), code="url_invalid")
        try:
            scheme, host, _port = split_url(data)
            literal_address(host)  # a host ending in a number must be an IPv4 address
        except DestinationRefused:
            raise ValidationError(
                _("Must be an absolute http(s) URL."), code="url_invalid"
            ) from None
        if self.context.get("livemode") and scheme != "https":
            raise ValidationError(_("Live mode requires an https URL."), code="url_invalid")
        if self.destination:
            refusal = url_refusal(data, allow_private=settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS)
            if refusal is not None:
                raise ValidationError(
                    _("Webhooks cannot be sent there: %(reason)s.")
                    % {"reason": refusal.localized()},
                    code="url_invalid",
                )
        return data

    def to_representation(self, value):
        return value


# --- Query parameters: read as text (the pagination and the selectors refuse bad values with
# parameter_invalid), described with their real type.


@extend_schema_field(
    {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT}
)
class LimitParam(serializers.CharField):
    pass


@extend_schema_field({"type": "integer", "minimum": 0, "maximum": MAX_OFFSET, "default": 0})
class OffsetParam(serializers.CharField):
    pass


@extend_schema_field(
    {
        "type": "string",
        "description": (
            "A date (YYYY-MM-DD, UTC) or an ISO 8601 datetime with offset "
            "(2026-11-21T09:30:00Z). date_from is inclusive; a date_to date includes that whole "
            "day, a date_to datetime is exclusive."
        ),
        "example": "2026-11-21",
    }
)
class DateBoundParam(serializers.CharField):
    pass


class StrictSerializer(serializers.Serializer):
    """Refuses card data and unknown fields before any field is validated."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            param = find_card_data(data)
            if param is not None:
                raise ValidationError(
                    {
                        param: [
                            ErrorDetail(
                                _(
                                    "Card details must never be sent to this API: card payments "
                                    "are entered on the card provider's hosted page only."
                                ),
                                code="card_data_forbidden",
                            )
                        ]
                    }
                )
            for key in data:
                if key not in self.fields or self.fields[key].read_only:
                    raise ValidationError(
                        {
                            key: [
                                ErrorDetail(
                                    _("Received unknown parameter: %(param)s.") % {"param": key},
                                    code="parameter_unknown",
                                )
                            ]
                        }
                    )
        return super().to_internal_value(data)


class OffsetPageQuery(StrictSerializer):
    """The parameters of a list whose objects have no id to start after (networks, an event's
    deliveries): a page of `limit` objects after skipping `offset` of them."""

    limit = LimitParam(required=False, help_text="How many objects to return.")
    offset = OffsetParam(required=False, help_text="How many objects to skip.")


class PageQuery(OffsetPageQuery):
    """The parameters of every list: a page of `limit` objects, newest first, after skipping
    `offset` of them or after the object `starting_after`."""

    starting_after = serializers.CharField(
        required=False,
        help_text="The id of an object of the previous page: the page starts after it "
        "(offset must then be 0). Faster than offset for deep pages.",
    )
