"""A mobile money charge that succeeded and is then reported paid again under another operator
transaction id: looked at, never dropped. Given back as a late payment once the operator
confirms that transaction (not counted in amount_refunded), kept for staff otherwise; never a
second prompt."""

from datetime import timedelta

import pytest
from django.utils import timezone

from payments.models import Charge, LedgerEntry, Refund
from payments.providers.base import ProviderOutcome
from payments.representations import refund_repr
from payments.services import charges, ledger, refunds
from sandbox.models import SandboxTransaction
from tests.factories import succeeded_mobile_money_charge

pytestmark = pytest.mark.django_db


def second_sandbox_payment(charge: Charge) -> SandboxTransaction:
    """The sandbox operator's record of a second payment of the charge (another transaction)."""
    return SandboxTransaction.objects.create(
        kind=SandboxTransaction.Kind.MOBILE_MONEY,
        reference=charge.id,
        amount=charge.amount,
        currency=charge.currency,
        phone=charge.phone,
        network=charge.network,
        created_at=timezone.now() - timedelta(minutes=5),
    )


def test_a_status_answer_naming_another_transaction_gives_it_back(merchant):
    charge = succeeded_mobile_money_charge(merchant)
    first = charge.provider_reference
    charges.charge_apply_outcome(
        charge_id=charge.id,
        outcome=ProviderOutcome(status="succeeded", provider_reference="TX-2", raw={"s": "TS"}),
    )
    charge.refresh_from_db()
    assert (charge.status, charge.provider_reference, charge.amount_refunded) == (
        "succeeded",
        first,
        0,
    )
    [refund] = charge.refunds.all()
    assert (refund.reason, refund.amount, refund.payment_reference) == (
        "late_payment",
        10000,
        "TX-2",
    )
    # The same answer again, and the charge's own transaction: nothing more.
    for reference in ("TX-2", first):
        charges.charge_apply_outcome(
            charge_id=charge.id,
            outcome=ProviderOutcome(status="succeeded", provider_reference=reference),
        )
    assert charge.refunds.count() == 1
    assert ledger.ledger_check() == []


def test_a_second_payment_the_operator_confirms_is_given_back_naming_it(merchant):
    charge = succeeded_mobile_money_charge(merchant)
    second = second_sandbox_payment(charge)
    prompts = SandboxTransaction.objects.filter(kind="mobile_money", reference=charge.id)
    assert charges.charge_extra_payment_reported(
        charge_id=charge.id, reference=second.id, answer={"callback": "SANDBOX"}
    )
    extra = charges.charge_extra_payment_check(charge_id=charge.id, reference=second.id)
    assert extra.status == "confirmed"
    refund = extra.refund
    assert (refund.reason, refund.payment_reference, refund.amount) == (
        "late_payment",
        second.id,
        10000,
    )
    assert refund_repr(refund)["operator_reference"] == second.id
    charge.refresh_from_db()
    assert charge.amount_refunded == 0 and charge.provider_reference != second.id
    rows = LedgerEntry.objects.filter(refund=refund)
    assert sorted((r.type, r.amount) for r in rows) == [("late_payment", 10000), ("refund", -10000)]
    refunds.refund_send(refund_id=refund.id)
    given_back = SandboxTransaction.objects.get(kind="refund", reference=refund.id)
    assert given_back.request["payment"] == second.id
    # Reported again: given back already, nothing waits; no prompt was ever sent again.
    assert not charges.charge_extra_payment_reported(
        charge_id=charge.id, reference=second.id, answer={}
    )
    assert prompts.count() == 2 and sum(p.request_count for p in prompts) == 2
    assert ledger.ledger_check() == []


def test_an_answer_that_says_nothing_leaves_the_second_payment_reported(merchant, settings):
    charge = succeeded_mobile_money_charge(merchant)
    charges.charge_extra_payment_reported(charge_id=charge.id, reference="TX-X", answer={})
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3600  # the operator has nothing to say yet
    second = second_sandbox_payment(charge)
    charges.charge_extra_payment_reported(charge_id=charge.id, reference=second.id, answer={})
    for reference in ("TX-X", second.id):
        extra = charges.charge_extra_payment_check(charge_id=charge.id, reference=reference)
        assert extra.status == "reported" and extra.refund is None
    assert not Refund.objects.exists()


def test_staff_ask_again_about_a_second_payment_the_operator_had_not_answered_for(
    merchant, settings, staff
):
    charge = succeeded_mobile_money_charge(merchant)
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3600
    second = second_sandbox_payment(charge)
    charges.charge_extra_payment_reported(charge_id=charge.id, reference=second.id, answer={})
    assert charges.charge_extra_payment_check(charge_id=charge.id, reference=second.id).status == (
        "reported"
    )
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0  # the operator knows it now
    response = staff.post(
        "/admin/payments/charge/",
        {"action": "check_status_now", "_selected_action": [charge.id]},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    said = [str(m) for m in response.context["messages"]]
    assert f"{charge.id}: other payment {second.id} is confirmed, given back." in said
    [refund] = Refund.objects.filter(charge=charge)
    assert refund.payment_reference == second.id
