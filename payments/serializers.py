"""Request validation for /v1 charges, refunds, payouts, the ledger and the networks. Shared:
the DRC phone field and its check (checkout's sessions take a customer's number too), and the
payout request, which the dashboard's payout form hands what people type to."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail, ValidationError

from core import money
from core.api.fields import (
    AmountField,
    CurrencyField,
    DateBoundParam,
    DescriptionField,
    HttpUrlField,
    MetadataField,
    OffsetPageQuery,
    PageQuery,
    StrictSerializer,
)
from payments import phones
from payments.models import (
    MERCHANT_REFUND_REASONS,
    ChargeStatus,
    Currency,
    LedgerType,
    Network,
    PaymentMethod,
    PayoutStatus,
    SettlementAccountType,
    SettlementStatus,
)


@extend_schema_field(
    {
        "type": "string",
        "pattern": f"^{phones.E164_DRC_MOBILE.pattern}$",
        "example": "+243812345678",
    }
)
class DrcPhoneField(serializers.CharField):
    """A DRC mobile number in E.164, which the OpenAPI document gives as a pattern (the very
    expression phones checks it with); checked, with its operator, by the serializer."""

    def __init__(self, **kwargs):
        kwargs.setdefault("trim_whitespace", False)
        super().__init__(**kwargs)


def _error(param: str, message: str, code: str) -> ValidationError:
    return ValidationError({param: [ErrorDetail(message, code=code)]})


def check_whole_units(amount: int, param: str = "amount") -> None:
    if not money.is_whole(amount):
        raise _error(
            param,
            _(
                "Mobile money takes whole units only: amount must be a multiple of 100 "
                "(e.g. 2500 = 25.00)."
            ),
            "amount_invalid",
        )


def check_drc_phone(phone: str, network: str | None, param: str = "phone") -> None:
    """phones.phone_problem, as the API's 400."""
    problem = phones.phone_problem(phone, network)
    if problem == phones.PHONE_INVALID:
        raise _error(
            param,
            _(
                "phone must be a DRC mobile number in E.164 format: +243 then 9 digits starting "
                "with 8 or 9 (e.g. +243812345678)."
            ),
            problem,
        )
    if problem == phones.PHONE_NETWORK_MISMATCH:
        raise _error(
            param,
            _("The number %(phone)s belongs to %(owner)s, not %(network)s.")
            % {"phone": phone, "owner": phones.network_for(phone), "network": network},
            problem,
        )


PHONE_HELP = (
    "The customer's DRC mobile number in E.164 format: +243 then 9 digits starting with 8 or 9 "
    "(+243812345678)."
)
NETWORK_HELP = "The operator of that number (its prefix must belong to it)."
CALLBACK_URL_HELP = "Where this object's webhook events go, instead of your webhook endpoint's URL."


@extend_schema_serializer(component_name="ChargeCreateRequest")
class ChargeCreateIn(StrictSerializer):
    """A charge: mobile money needs `phone` and `network`; card takes USD only. Card details are
    never sent here."""

    amount = AmountField()
    currency = CurrencyField()
    phone = DrcPhoneField(
        required=False,
        allow_blank=True,
        help_text=f"Mobile money, required: {PHONE_HELP[0].lower()}{PHONE_HELP[1:]}",
    )
    network = serializers.ChoiceField(
        choices=Network.values,
        required=False,
        help_text=f"Mobile money, required: {NETWORK_HELP[0].lower()}{NETWORK_HELP[1:]}",
    )
    payment_method = serializers.ChoiceField(
        choices=PaymentMethod.values, default=PaymentMethod.MOBILE_MONEY
    )
    description = DescriptionField(required=False, help_text="Free text, for you.")
    metadata = MetadataField(required=False)
    callback_url = HttpUrlField(required=False, destination=True, help_text=CALLBACK_URL_HELP)
    return_url = HttpUrlField(
        required=False, help_text="Card only: where the customer lands after the hosted page."
    )

    def validate(self, attrs):
        if attrs["payment_method"] == PaymentMethod.CARD:
            if attrs["currency"] != Currency.USD:
                raise _error(
                    "currency", _("Card payments are taken in USD only."), "currency_not_supported"
                )
            attrs.pop("phone", None)
            attrs.pop("network", None)
            return attrs
        attrs.pop("return_url", None)
        for name in ("phone", "network"):
            if name not in attrs:
                raise _error(
                    name,
                    _("Missing required param: %(param)s (required for mobile money).")
                    % {"param": name},
                    "parameter_missing",
                )
        check_drc_phone(attrs["phone"], attrs["network"])
        check_whole_units(attrs["amount"])
        return attrs


class ChargeListQuery(PageQuery):
    status = serializers.ChoiceField(choices=ChargeStatus.values, required=False)
    network = serializers.ChoiceField(choices=Network.values, required=False)
    payment_method = serializers.ChoiceField(choices=PaymentMethod.values, required=False)
    date_from = DateBoundParam(required=False)
    date_to = DateBoundParam(required=False)


@extend_schema_serializer(component_name="RefundCreateRequest")
class RefundCreateIn(StrictSerializer):
    """A refund of all (amount omitted) or part of a succeeded charge."""

    amount = AmountField(required=False, help_text="Omitted: what remains refundable.")
    # late_payment is set by the service only: refused here.
    reason = serializers.ChoiceField(choices=MERCHANT_REFUND_REASONS, required=False)
    metadata = MetadataField(required=False)


@extend_schema_serializer(component_name="PayoutCreateRequest")
class PayoutCreateIn(StrictSerializer):
    """A payout from your available balance to a mobile money account."""

    amount = AmountField()
    currency = CurrencyField()
    phone = DrcPhoneField(help_text=PHONE_HELP)
    network = serializers.ChoiceField(choices=Network.values, help_text=NETWORK_HELP)
    description = DescriptionField(required=False, help_text="Free text, for you.")
    metadata = MetadataField(required=False)
    callback_url = HttpUrlField(required=False, destination=True, help_text=CALLBACK_URL_HELP)

    def validate(self, attrs):
        check_drc_phone(attrs["phone"], attrs["network"])
        check_whole_units(attrs["amount"])
        return attrs


class PayoutListQuery(PageQuery):
    status = serializers.ChoiceField(choices=PayoutStatus.values, required=False)
    network = serializers.ChoiceField(choices=Network.values, required=False)
    date_from = DateBoundParam(required=False)
    date_to = DateBoundParam(required=False)


class SettlementAccountCreateIn(StrictSerializer):
    """A bank account (bank_name, account_holder, account_number, swift) or the merchant's own
    mobile money wallet (phone, network) that settlements of one currency go to."""

    type = serializers.ChoiceField(choices=SettlementAccountType.values)
    currency = CurrencyField()
    bank_name = serializers.CharField(required=False, max_length=100)
    account_holder = serializers.CharField(required=False, max_length=200)
    account_number = serializers.CharField(
        required=False,
        max_length=60,
        help_text="8 to 34 letters and digits; spaces are ignored. Never shown again: last4.",
    )
    swift = serializers.CharField(required=False, max_length=20, help_text="SWIFT/BIC code.")
    phone = DrcPhoneField(required=False, help_text=PHONE_HELP)
    network = serializers.ChoiceField(
        choices=Network.values, required=False, help_text=NETWORK_HELP
    )

    BANK = ("bank_name", "account_holder", "account_number", "swift")
    MOBILE = ("phone", "network")

    def validate(self, attrs):
        needed, other = (
            (self.BANK, self.MOBILE)
            if attrs["type"] == SettlementAccountType.BANK_ACCOUNT
            else (self.MOBILE, self.BANK)
        )
        for name in needed:
            if not attrs.get(name):
                raise _error(name, _("This field is required."), "parameter_missing")
        for name in other:
            if name in attrs:
                raise _error(
                    name,
                    _("This field is not one of this type of account."),
                    "parameter_unknown",
                )
        if attrs["type"] == SettlementAccountType.MOBILE_MONEY:
            check_drc_phone(attrs["phone"], attrs["network"])
        return attrs


class SettlementCreateIn(StrictSerializer):
    """A settlement of available balance to a settlement account."""

    currency = CurrencyField()
    amount = AmountField(
        required=False,
        help_text="By default the most the available balance covers with the fee (whole units "
        "for a mobile money account).",
    )
    settlement_account = serializers.CharField(
        required=False, max_length=40, help_text="By default the currency's default account."
    )


class SettlementListQuery(PageQuery):
    status = serializers.ChoiceField(choices=SettlementStatus.values, required=False)
    currency = serializers.ChoiceField(choices=Currency.values, required=False)
    date_from = DateBoundParam(required=False)
    date_to = DateBoundParam(required=False)


class LedgerExportQuery(StrictSerializer):
    currency = serializers.ChoiceField(choices=Currency.values, required=False)
    type = serializers.ChoiceField(choices=LedgerType.values, required=False)
    date_from = DateBoundParam(required=False)
    date_to = DateBoundParam(required=False)


class LedgerListQuery(PageQuery, LedgerExportQuery):
    settlement = serializers.CharField(
        required=False,
        max_length=40,
        help_text="The transactions an automatic settlement paid out (stl_…).",
    )


class NetworkListQuery(OffsetPageQuery):
    """GET /v1/networks takes limit and offset only (a network has no id to start after)."""


class NetworkPredictQuery(StrictSerializer):
    phone = serializers.CharField(
        allow_blank=True,
        trim_whitespace=False,
        help_text="The number as a customer types it: 0812 345 678, +243 81 234 5678, "
        "243812345678…",
    )

    def validate_phone(self, value: str) -> phones.Prediction:
        prediction = phones.predict(value)
        if prediction is None:
            raise ValidationError(
                _(
                    "phone is not a DRC mobile number: give 10 digits starting with 08 or 09 "
                    "(e.g. 0812 345 678), or +243 then 9 digits (e.g. +243812345678)."
                ),
                code=phones.PHONE_INVALID,
            )
        return prediction
