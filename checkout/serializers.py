"""Request validation for /v1/checkout/sessions."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from checkout.models import SessionStatus
from core.api.fields import (
    AmountField,
    CurrencyField,
    DateBoundParam,
    HttpUrlField,
    MetadataField,
    PageQuery,
    StrictSerializer,
)
from payments.serializers import DrcPhoneField, check_drc_phone

EXPIRES_IN_MIN = 1800
EXPIRES_IN_MAX = 86400


@extend_schema_field(
    {
        "type": "integer",
        "minimum": EXPIRES_IN_MIN,
        "maximum": EXPIRES_IN_MAX,
        "default": EXPIRES_IN_MAX,
        "description": "Seconds from now until the session expires.",
    }
)
class ExpiresInField(serializers.Field):
    def to_internal_value(self, data):
        if type(data) is not int or not EXPIRES_IN_MIN <= data <= EXPIRES_IN_MAX:
            raise ValidationError(
                _("expires_in must be an integer number of seconds between %(min)s and %(max)s.")
                % {"min": EXPIRES_IN_MIN, "max": EXPIRES_IN_MAX},
                code="parameter_invalid",
            )
        return data

    def to_representation(self, value):
        return value


@extend_schema_serializer(component_name="CheckoutSessionCreateRequest")
class SessionCreateIn(StrictSerializer):
    """A checkout session: the amount to pay and where the customer comes back to."""

    amount = AmountField()
    currency = CurrencyField()
    success_url = HttpUrlField(
        help_text="Where the customer goes after paying; {CHECKOUT_SESSION_ID} is replaced "
        "with the session's id."
    )
    cancel_url = HttpUrlField(help_text="Where the customer goes to give up.")
    metadata = MetadataField(required=False)
    customer_phone = DrcPhoneField(
        required=False,
        help_text="Pre-fills the page: +243 then 9 digits starting with 8 or 9.",
    )
    customer_email = serializers.EmailField(required=False, max_length=254)
    expires_in = ExpiresInField(required=False)

    def validate(self, attrs):
        if "customer_phone" in attrs:
            check_drc_phone(attrs["customer_phone"], None, param="customer_phone")
        return attrs


class SessionListQuery(PageQuery):
    status = serializers.ChoiceField(choices=SessionStatus.values, required=False)
    date_from = DateBoundParam(required=False)
    date_to = DateBoundParam(required=False)
