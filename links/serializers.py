"""Request validation for /v1/payment_links."""

from datetime import UTC

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from core.api.fields import (
    AmountField,
    CurrencyField,
    DescriptionField,
    HttpUrlField,
    MetadataField,
    PageQuery,
    StrictSerializer,
)

LINK_DESCRIPTION_MAX = 200
MAX_PAYMENTS_MAX = 2_147_483_647  # what the column holds


@extend_schema_field({"type": "boolean"})
class StrictBooleanField(serializers.Field):
    """A JSON boolean: strings, numbers and null are refused."""

    def validate_empty_values(self, data):
        if data is None:
            self.to_internal_value(data)
        return super().validate_empty_values(data)

    def to_internal_value(self, data):
        if type(data) is not bool:
            raise ValidationError(
                _("%(param)s must be true or false.") % {"param": self.field_name},
                code="parameter_invalid",
            )
        return data

    def to_representation(self, value):
        return value


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_PAYMENTS_MAX})
class MaxPaymentsField(serializers.Field):
    def to_internal_value(self, data):
        if type(data) is not int or not 1 <= data <= MAX_PAYMENTS_MAX:
            raise ValidationError(
                _("max_payments must be an integer of at least 1."), code="parameter_invalid"
            )
        return data

    def to_representation(self, value):
        return value


@extend_schema_field({"type": "string", "format": "date-time", "example": "2026-12-31T23:59:59Z"})
class FutureDateTimeField(serializers.Field):
    """An ISO 8601 datetime with offset, in the future."""

    def to_internal_value(self, data):
        moment = None
        if isinstance(data, str):
            try:
                moment = parse_datetime(data)
                if moment is not None and moment.tzinfo is not None:
                    moment = moment.astimezone(UTC)
            except (ValueError, OverflowError):
                moment = None
        if moment is None or moment.tzinfo is None:
            raise ValidationError(
                _("%(param)s must be an ISO 8601 datetime with offset (e.g. 2026-11-21T09:30:00Z).")
                % {"param": self.field_name},
                code="parameter_invalid",
            )
        if moment <= timezone.now():
            raise ValidationError(
                _("%(param)s must be in the future.") % {"param": self.field_name},
                code="parameter_invalid",
            )
        return moment

    def to_representation(self, value):
        return value


@extend_schema_serializer(component_name="PaymentLinkCreateRequest")
class LinkCreateIn(StrictSerializer):
    """A payment link: what is sold, and its amount or `custom_amount: true`."""

    currency = CurrencyField()
    description = DescriptionField(
        max_length=LINK_DESCRIPTION_MAX,
        allow_blank=False,
        help_text="What is sold, shown on the page (1 to 200 characters).",
    )
    amount = AmountField(
        required=False, help_text="In the smallest currency unit; omit with custom_amount."
    )
    custom_amount = StrictBooleanField(
        required=False,
        help_text="true: the customer types the amount (within the networks' limits).",
    )
    max_payments = MaxPaymentsField(
        required=False, help_text="How many payments the link takes at most."
    )
    expires_at = FutureDateTimeField(
        required=False, help_text="When the link stops taking payments."
    )
    success_url = HttpUrlField(
        required=False,
        help_text="Where the customer goes after paying; {CHECKOUT_SESSION_ID} is replaced "
        "with the session's id. Without it the service shows its own page.",
    )
    metadata = MetadataField(required=False)

    def validate_description(self, value: str) -> str:
        # The page shows it as what is sold: spaces alone say nothing to the customer.
        if not value.strip():
            raise ValidationError(
                _("description must say what is sold (1 to 200 characters)."),
                code="parameter_invalid",
            )
        return value


@extend_schema_serializer(component_name="PaymentLinkUpdateRequest")
class LinkUpdateIn(StrictSerializer):
    """Only `active` changes once a link is made."""

    active = StrictBooleanField(help_text="false: the page answers 410 and takes no payment.")


@extend_schema_field({"type": "boolean"})
class ActiveParam(serializers.CharField):
    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if value not in ("true", "false"):
            raise ValidationError(_("active must be true or false."), code="parameter_invalid")
        return value == "true"


class LinkListQuery(PageQuery):
    active = ActiveParam(required=False, help_text="Only active (true) or inactive (false) links.")
