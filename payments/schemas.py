"""The objects /v1 answers with, as its OpenAPI document describes them: charges, refunds,
payouts, the balance and its transactions, the networks, and their lists. The events' schemas
(webhooks/api/schemas.py) carry charges, refunds and payouts; the fields every object shares are
core's (core/api/schemas.py).

These serializers only describe; the bodies are built by payments/representations.py. The schema
conformance tests (tests/payments/api/test_openapi*.py) hold the two together."""

from drf_spectacular.utils import PolymorphicProxySerializer
from rest_framework import serializers

from core.api.fields import MetadataField
from core.api.schemas import (
    amount_field,
    currency_field,
    failure_code_field,
    failure_message_field,
    list_envelope,
    livemode_field,
    object_field,
    phone_field,
    timestamp_field,
)
from payments.models import (
    ChargeStatus,
    LedgerType,
    PaymentMethod,
    PayoutStatus,
    PricingKind,
    RefundReason,
    RefundStatus,
    SettlementAccountType,
    SettlementMethod,
    SettlementStatus,
)
from payments.models import (
    Network as NetworkCode,
)


def network_field(**kwargs) -> serializers.ChoiceField:
    return serializers.ChoiceField(choices=NetworkCode.values, **kwargs)


class NextAction(serializers.Serializer):
    """What the customer's browser must do to pay a pending card charge: POST a form with one
    hidden input per `params` entry, unchanged, to `payment_url`."""

    type = serializers.ChoiceField(choices=["provider_redirect"])
    payment_url = serializers.URLField(help_text="The card provider's hosted payment page.")
    params = serializers.DictField(
        child=serializers.CharField(),
        help_text="The signed form fields of this payment attempt (no card data).",
    )


class Charge(serializers.Serializer):
    """A payment taken from a customer by mobile money or card."""

    id = serializers.CharField(help_text="ch_ followed by 24 characters.")
    object = object_field("charge")
    livemode = livemode_field()
    amount = amount_field()
    currency = currency_field()
    payment_method = serializers.ChoiceField(choices=PaymentMethod.values)
    phone = phone_field(required=False)
    network = network_field(required=False, help_text="Mobile money charges only.")
    status = serializers.ChoiceField(
        choices=ChargeStatus.values,
        help_text="pending, then succeeded, failed or declined, once: a final status never "
        "changes.",
    )
    description = serializers.CharField(allow_null=True)
    metadata = MetadataField()
    amount_refunded = amount_field(
        min_value=0,
        help_text="Refunded so far (pending refunds included), of the payment the charge "
        "kept: the service's refund of a second payment of the charge is not counted.",
    )
    fee = serializers.IntegerField(
        allow_null=True,
        min_value=0,
        help_text="What the charge cost, in the smallest currency unit, by the rate of the "
        "merchant's plan when it was created: round half up of amount × rate_bp / 10000, plus "
        "the fixed fee, never more than the amount. Null until it succeeded; kept when it is "
        "refunded.",
    )
    net = serializers.IntegerField(
        allow_null=True,
        min_value=0,
        help_text="amount − fee: what the charge added to the balance. Null until it succeeded.",
    )
    failure_code = failure_code_field()
    failure_message = failure_message_field()
    operator_reference = serializers.CharField(
        allow_null=True,
        help_text="The operator's or card provider's transaction id of the payment that stands "
        "(the one that made the charge succeed, or the late payment given back); null until "
        "known. What the operator's statement names it by.",
    )
    checkout_session = serializers.CharField(
        allow_null=True, help_text="The checkout session the charge was made from, if any."
    )
    created_at = timestamp_field()
    updated_at = timestamp_field()
    next_action = NextAction(required=False, help_text="Present while a card charge is pending.")


class MobileMoneyChargeCreated(serializers.Serializer):
    """The answer to a mobile money charge: the prompt is on its way to the customer's phone."""

    id = serializers.CharField()
    object = object_field("charge")
    livemode = livemode_field()
    amount = amount_field()
    currency = currency_field()
    phone = phone_field()
    network = network_field()
    status = serializers.ChoiceField(choices=ChargeStatus.values)
    description = serializers.CharField(allow_null=True)
    metadata = MetadataField()
    created_at = timestamp_field()
    updated_at = timestamp_field()


class CardChargeCreated(serializers.Serializer):
    """The answer to a card charge: send the customer's browser to `next_action`."""

    id = serializers.CharField()
    object = object_field("charge")
    livemode = livemode_field()
    status = serializers.ChoiceField(choices=ChargeStatus.values)
    amount = amount_field()
    currency = currency_field()
    payment_method = serializers.ChoiceField(choices=PaymentMethod.values)
    next_action = NextAction()


CHARGE_CREATED = PolymorphicProxySerializer(
    component_name="ChargeCreated",
    serializers=[MobileMoneyChargeCreated, CardChargeCreated],
    resource_type_field_name=None,
)


class Refund(serializers.Serializer):
    """Money given back to the customer of a succeeded charge, in full or in part."""

    id = serializers.CharField(help_text="re_ followed by 24 characters.")
    object = object_field("refund")
    livemode = livemode_field()
    charge_id = serializers.CharField()
    amount = amount_field()
    currency = currency_field()
    status = serializers.ChoiceField(choices=RefundStatus.values)
    reason = serializers.ChoiceField(
        choices=RefundReason.values,
        allow_null=True,
        help_text="late_payment: a payment that could not be accepted (it arrived after its "
        "charge had failed, or it is a second payment of the charge), given back by the service "
        "itself.",
    )
    metadata = MetadataField()
    failure_code = failure_code_field()
    failure_message = failure_message_field()
    operator_reference = serializers.CharField(
        allow_null=True,
        help_text="The operator's or card provider's transaction id. For a late_payment refund "
        "of a second payment of the charge: that payment's id (such a refund is not counted in "
        "the charge's amount_refunded). For any other refund: the provider's id of the refund "
        "itself, null until the provider gives one.",
    )
    created_at = timestamp_field()
    updated_at = timestamp_field()


class Payout(serializers.Serializer):
    """Money sent from the available balance to a mobile money account."""

    id = serializers.CharField(help_text="po_ followed by 24 characters.")
    object = object_field("payout")
    livemode = livemode_field()
    amount = amount_field()
    currency = currency_field()
    phone = phone_field()
    network = network_field()
    status = serializers.ChoiceField(choices=PayoutStatus.values)
    description = serializers.CharField(allow_null=True)
    metadata = MetadataField()
    failure_code = failure_code_field()
    failure_message = failure_message_field()
    operator_reference = serializers.CharField(
        allow_null=True,
        help_text="The operator's transaction id of the payout; null until the operator gives one.",
    )
    created_at = timestamp_field()
    updated_at = timestamp_field()


class BalanceAmount(serializers.Serializer):
    currency = currency_field()
    amount = serializers.IntegerField(help_text="In the smallest currency unit.")


class Balance(serializers.Serializer):
    """The balance per currency: the net of the balance transactions, split by their
    available_on."""

    object = object_field("balance")
    livemode = livemode_field()
    available = BalanceAmount(
        many=True,
        help_text="The net of the transactions whose available_on has passed: what refunds, "
        "payouts and settlements may draw on (never below zero).",
    )
    pending = BalanceAmount(
        many=True,
        help_text="The net of the transactions not yet available (charges within their "
        "plan's delay).",
    )


class FeeDetail(serializers.Serializer):
    type = serializers.ChoiceField(choices=["processing_fee", "payout_fee", "settlement_fee"])
    amount = serializers.IntegerField(help_text="Negative where a failure gives the fee back.")
    currency = currency_field()


class PricingRate(serializers.Serializer):
    kind = serializers.ChoiceField(choices=PricingKind.values)
    payment_method = serializers.ChoiceField(
        choices=PaymentMethod.values,
        allow_null=True,
        help_text="Null: the kind's rate for every method.",
    )
    network = network_field(allow_null=True, help_text="Null: every network of the method.")
    currency = currency_field()
    rate_bp = serializers.IntegerField(
        min_value=0, max_value=10000, help_text="Basis points of the amount: 250 is 2.50 %."
    )
    fixed = serializers.IntegerField(
        min_value=0, help_text="Added to each fee, in the smallest currency unit."
    )
    available_after_days = serializers.IntegerField(
        min_value=0,
        help_text="Charges: days after it succeeded before a charge's net is available. "
        "0 for the other kinds.",
    )


class Pricing(serializers.Serializer):
    """The merchant's price plan. Of its rates the most specific applies: the network's, else
    the payment method's, else the kind's. Test mode applies the same plan."""

    object = object_field("pricing")
    livemode = livemode_field()
    rates = PricingRate(many=True)


class BalanceTransaction(serializers.Serializer):
    """One movement of the balance, written once and never changed."""

    id = serializers.CharField(help_text="txn_ followed by 24 characters.")
    object = object_field("balance_transaction")
    livemode = livemode_field()
    type = serializers.ChoiceField(choices=LedgerType.values)
    amount = serializers.IntegerField(
        help_text="Signed, in the smallest currency unit: positive in, negative out."
    )
    fee = serializers.IntegerField(
        help_text="What this transaction charges, in the smallest currency unit: a charge's "
        "or a payout's fee; negative on a payout_failure, which gives the fee back; 0 for "
        "refunds and late payments."
    )
    net = serializers.IntegerField(help_text="amount − fee: what moves the balance.")
    fee_details = FeeDetail(many=True, help_text="The parts of fee, adding up to it; [] when 0.")
    currency = currency_field()
    source = serializers.CharField(
        help_text="The id of the charge, refund or payout that moved it."
    )
    settlement = serializers.CharField(
        allow_null=True,
        help_text="The automatic settlement that paid this transaction out (stl_…), if any.",
    )
    available_on = timestamp_field(
        help_text="When its net becomes available: a charge's once its plan's delay has "
        "passed, every other transaction at its creation."
    )
    created_at = timestamp_field()


class NetworkLimits(serializers.Serializer):
    currency = currency_field()
    min_amount = amount_field(help_text="The smallest amount the network takes, in minor units.")
    max_amount = amount_field(help_text="The largest amount the network takes, in minor units.")


class Network(serializers.Serializer):
    """A mobile money network: whether it takes payments now, the amounts it takes, whether it
    pays out."""

    object = object_field("network")
    livemode = livemode_field()
    network = network_field()
    status = serializers.ChoiceField(
        choices=["operational", "degraded", "closed"],
        help_text="closed: new charges and payouts are refused (503 network_unavailable) until it "
        "reopens; degraded: many recent payments failed at the operator.",
    )
    currencies = NetworkLimits(many=True, help_text="What it takes, per currency.")
    payouts = serializers.BooleanField(help_text="Whether payouts can be sent on it.")


class NetworkPrediction(serializers.Serializer):
    """The operator a typed number belongs to."""

    object = object_field("network_prediction")
    phone = phone_field()
    network = network_field(
        allow_null=True, help_text="null: a DRC mobile number of a prefix no operator is known for."
    )


class SettlementAccount(serializers.Serializer):
    """Where settlements of one currency go: a bank account or the merchant's own wallet."""

    id = serializers.CharField(help_text="sa_ followed by 24 characters.")
    object = object_field("settlement_account")
    livemode = livemode_field()
    type = serializers.ChoiceField(choices=SettlementAccountType.values)
    currency = currency_field()
    bank_name = serializers.CharField(required=False, help_text="Bank accounts only.")
    network = network_field(required=False, help_text="Mobile money accounts only.")
    account_holder = serializers.CharField(
        help_text="The business's name for a mobile money account."
    )
    last4 = serializers.CharField(help_text="The last four characters of the number.")
    default = serializers.BooleanField(help_text="Settlements of its currency go here by default.")
    available_from = timestamp_field(
        help_text="Settlements to it can be made from then (a new live account is held)."
    )
    created_at = timestamp_field()


class SettlementAccountShown(serializers.Serializer):
    id = serializers.CharField()
    type = serializers.ChoiceField(choices=SettlementAccountType.values)
    bank_name = serializers.CharField(required=False)
    network = network_field(required=False)
    last4 = serializers.CharField()


class Settlement(serializers.Serializer):
    """Available balance moved to one of the merchant's settlement accounts."""

    id = serializers.CharField(help_text="stl_ followed by 24 characters.")
    object = object_field("settlement")
    livemode = livemode_field()
    amount = amount_field()
    fee = serializers.IntegerField(
        min_value=0, help_text="Taken from the balance with the amount; given back on failure."
    )
    currency = currency_field()
    settlement_account = SettlementAccountShown()
    method = serializers.ChoiceField(
        choices=SettlementMethod.values, help_text="manual: on demand; automatic: by schedule."
    )
    status = serializers.ChoiceField(
        choices=SettlementStatus.values,
        help_text="pending, in_transit (handed to the bank or the operator), then paid or failed.",
    )
    reference = serializers.CharField(
        help_text="What you will find on your bank or wallet statement."
    )
    operator_reference = serializers.CharField(
        allow_null=True,
        help_text="The operator's transaction id of a mobile money settlement (the bank's "
        "reference of a bank one, once paid).",
    )
    failure_code = failure_code_field()
    failure_message = failure_message_field()
    arrival_estimate = timestamp_field(
        allow_null=True, help_text="When the money is expected (when it arrived, once paid)."
    )
    created_at = timestamp_field()
    updated_at = timestamp_field()


class Deleted(serializers.Serializer):
    id = serializers.CharField()
    object = serializers.CharField()
    deleted = serializers.BooleanField()


ChargeList = list_envelope(Charge, "ChargeList")
SettlementList = list_envelope(Settlement, "SettlementList")
SettlementAccountList = list_envelope(SettlementAccount, "SettlementAccountList")
RefundList = list_envelope(Refund, "RefundList")
PayoutList = list_envelope(Payout, "PayoutList")
BalanceTransactionList = list_envelope(BalanceTransaction, "BalanceTransactionList")
NetworkList = list_envelope(Network, "NetworkList", order="always in the same order")
