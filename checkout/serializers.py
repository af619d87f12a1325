"""Request validation for /v1/checkout/sessions."""

from django.utils.translation import gettext as _
from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from payments.api.fields import (
    AmountField,
    CurrencyField,
    HttpUrlField,
    MetadataField,
    StrictSerializer,
)
from payments.api.serializers import check_drc_phone

EXPIRES_IN_MIN = 1800
EXPIRES_IN_MAX = 86400


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


class SessionCreateIn(StrictSerializer):
    amount = AmountField()
    currency = CurrencyField()
    success_url = HttpUrlField()
    cancel_url = HttpUrlField()
    metadata = MetadataField(required=False)
    customer_phone = serializers.CharField(required=False, trim_whitespace=False)
    customer_email = serializers.EmailField(required=False, max_length=254)
    expires_in = ExpiresInField(required=False)

    def validate(self, attrs):
        if "customer_phone" in attrs:
            check_drc_phone(attrs["customer_phone"], None, param="customer_phone")
        return attrs


class SessionListQuery(StrictSerializer):
    limit = serializers.CharField(required=False)
    offset = serializers.CharField(required=False)
    starting_after = serializers.CharField(required=False)
    status = serializers.ChoiceField(choices=["open", "complete", "expired"], required=False)
    date_from = serializers.CharField(required=False)
    date_to = serializers.CharField(required=False)
