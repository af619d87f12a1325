"""How resources look in the API and in webhook events (one place, used by both)."""

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from payments import pricing
from payments.models import (
    Charge,
    ChargeStatus,
    LedgerEntry,
    PaymentMethod,
    Payout,
    Refund,
    Settlement,
    SettlementAccount,
)
from payments.phones import Prediction

if TYPE_CHECKING:
    from payments.selectors import BalanceSums, NetworkOverview


def iso(value: datetime | None) -> str | None:
    """ISO 8601 in UTC with a trailing Z and microseconds."""
    if value is None:
        return None
    # isoformat, not strftime: a third less time, always microseconds and a four-digit year
    return value.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"


def _next_action(charge: Charge) -> dict | None:
    if charge.payment_method == PaymentMethod.CARD and charge.status == ChargeStatus.PENDING:
        return charge.next_action
    return None


# The columns charge_repr reads: a charge read for it alone (GET) reads only these.
CHARGE_REPR_FIELDS = (
    "id", "livemode", "amount", "currency", "payment_method", "phone", "network", "status",
    "description", "metadata", "amount_refunded", "failure_code", "failure_message",
    "fee_rate_bp", "fee_fixed", "provider_reference",
    "checkout_session_id", "created_at", "updated_at", "next_action",
)  # fmt: skip


def charge_fee_and_net(charge: Charge) -> dict:
    """A charge's fee by the rate kept on it, and its net: integers once it succeeded, null
    before (and on a charge that did not)."""
    if charge.status != ChargeStatus.SUCCEEDED:
        return {"fee": None, "net": None}
    fee = pricing.charge_fee(charge)
    return {"fee": fee, "net": charge.amount - fee}


def charge_repr(charge: Charge) -> dict:
    """The full charge object (GET, lists, events)."""
    data = {
        "id": charge.id,
        "object": "charge",
        "livemode": charge.livemode,
        "amount": charge.amount,
        "currency": charge.currency,
        "payment_method": charge.payment_method,
    }
    if charge.payment_method == PaymentMethod.MOBILE_MONEY:
        data["phone"] = charge.phone
        data["network"] = charge.network
    data.update(
        {
            "status": charge.status,
            "description": charge.description or None,
            "metadata": charge.metadata,
            "amount_refunded": charge.amount_refunded,
            **charge_fee_and_net(charge),
            "failure_code": charge.failure_code or None,
            "failure_message": charge.failure_message or None,
            # The operator's or card provider's transaction id of the payment that stands.
            "operator_reference": charge.provider_reference or None,
            "checkout_session": charge.checkout_session_id,
            "created_at": iso(charge.created_at),
            "updated_at": iso(charge.updated_at),
        }
    )
    next_action = _next_action(charge)
    if next_action is not None:
        data["next_action"] = next_action
    return data


MOBILE_MONEY_CREATED_FIELDS = (
    "id", "object", "livemode", "amount", "currency", "phone", "network", "status",
    "description", "metadata", "created_at", "updated_at",
)  # fmt: skip
CARD_CREATED_FIELDS = (
    "id", "object", "livemode", "status", "amount", "currency", "payment_method", "next_action",
)  # fmt: skip


def charge_created_repr(charge: Charge) -> dict:
    """The creation response: exactly the fields the interface lists (plus livemode)."""
    full = charge_repr(charge)
    names = (
        CARD_CREATED_FIELDS
        if charge.payment_method == PaymentMethod.CARD
        else MOBILE_MONEY_CREATED_FIELDS
    )
    return {name: full[name] for name in names if name in full}


def refund_repr(refund: Refund) -> dict:
    return {
        "id": refund.id,
        "object": "refund",
        "livemode": refund.livemode,
        "charge_id": refund.charge_id,
        "amount": refund.amount,
        "currency": refund.currency,
        "status": refund.status,
        "reason": refund.reason or None,
        "metadata": refund.metadata,
        "failure_code": refund.failure_code or None,
        "failure_message": refund.failure_message or None,
        "operator_reference": refund.operator_reference or None,
        "created_at": iso(refund.created_at),
        "updated_at": iso(refund.updated_at),
    }


def payout_repr(payout: Payout) -> dict:
    return {
        "id": payout.id,
        "object": "payout",
        "livemode": payout.livemode,
        "amount": payout.amount,
        "currency": payout.currency,
        "phone": payout.phone,
        "network": payout.network,
        "status": payout.status,
        "description": payout.description or None,
        "metadata": payout.metadata,
        "failure_code": payout.failure_code or None,
        "failure_message": payout.failure_message or None,
        "operator_reference": payout.provider_reference or None,
        "created_at": iso(payout.created_at),
        "updated_at": iso(payout.updated_at),
    }


# What each row's fee is (fee_details' `type`), by the row's type.
FEE_DETAIL_TYPE = {
    "charge": "processing_fee",
    "payout": "payout_fee",
    "payout_failure": "payout_fee",
    "settlement": "settlement_fee",
    "settlement_failure": "settlement_fee",
}


def fee_details(entry: LedgerEntry) -> list[dict]:
    """The parts of a row's fee, adding up to it: one part (negative on a failure that gives a
    fee back), or none when the fee is 0."""
    if not entry.fee:
        return []
    return [{"type": FEE_DETAIL_TYPE[entry.type], "amount": entry.fee, "currency": entry.currency}]


def settlement_account_repr(account: SettlementAccount) -> dict:
    data = {
        "id": account.id,
        "object": "settlement_account",
        "livemode": account.livemode,
        "type": account.type,
        "currency": account.currency,
    }
    if account.type == "bank_account":
        data["bank_name"] = account.bank_name
    else:
        data["network"] = account.network
    data.update(
        {
            "account_holder": account.account_holder,
            "last4": account.last4,
            "default": account.is_default,
            "available_from": iso(account.available_from),
            "created_at": iso(account.created_at),
        }
    )
    return data


def settlement_repr(settlement: Settlement) -> dict:
    account = settlement.account
    shown = {"id": account.id, "type": account.type}
    if account.type == "bank_account":
        shown["bank_name"] = account.bank_name
    else:
        shown["network"] = account.network
    shown["last4"] = account.last4
    return {
        "id": settlement.id,
        "object": "settlement",
        "livemode": settlement.livemode,
        "amount": settlement.amount,
        "fee": settlement.fee,
        "currency": settlement.currency,
        "settlement_account": shown,
        "method": settlement.method,
        "status": settlement.status,
        "reference": settlement.reference,
        # The operator's transaction id of a wallet settlement (the bank's reference of a bank
        # one, once paid).
        "operator_reference": settlement.provider_reference or None,
        "failure_code": settlement.failure_code or None,
        "failure_message": settlement.failure_message or None,
        "arrival_estimate": iso(settlement.arrival_estimate),
        "created_at": iso(settlement.created_at),
        "updated_at": iso(settlement.updated_at),
    }


def _settled_by(entry: LedgerEntry) -> str | None:
    settled = getattr(entry, "settled", None)  # none: the reverse one-to-one is missing
    return settled.settlement_id if settled is not None else None


def balance_transaction_repr(entry: LedgerEntry) -> dict:
    return {
        "id": entry.id,
        "object": "balance_transaction",
        "livemode": entry.livemode,
        "type": entry.type,
        "amount": entry.amount,
        "fee": entry.fee,
        "net": entry.amount - entry.fee,
        "fee_details": fee_details(entry),
        "currency": entry.currency,
        "source": entry.source,
        # The automatic settlement that paid it out, if any.
        "settlement": _settled_by(entry),
        # Rows written before fees were available from their creation.
        "available_on": iso(entry.available_on or entry.created_at),
        "created_at": iso(entry.created_at),
    }


def balance_repr(*, livemode: bool, sums: "dict[str, BalanceSums]") -> dict:
    return {
        "object": "balance",
        "livemode": livemode,
        "available": [
            {"currency": currency, "amount": of_currency.available}
            for currency, of_currency in sums.items()
        ],
        "pending": [
            {"currency": currency, "amount": of_currency.pending}
            for currency, of_currency in sums.items()
        ],
    }


def network_repr(overview: "NetworkOverview", *, livemode: bool) -> dict:
    return {
        "object": "network",
        "livemode": livemode,
        "network": overview.network,
        "status": overview.status,
        "currencies": [
            {"currency": currency, "min_amount": low, "max_amount": high}
            for currency, (low, high) in overview.limits.items()
        ],
        "payouts": overview.payouts,
    }


def network_prediction_repr(prediction: Prediction) -> dict:
    return {
        "object": "network_prediction",
        "phone": prediction.phone,
        "network": str(prediction.network) if prediction.network else None,
    }


def pricing_repr(*, livemode: bool, plan: "list[pricing.Rate]") -> dict:
    return {
        "object": "pricing",
        "livemode": livemode,
        "rates": [rate.as_json() for rate in plan],
    }
