"""A mobile money charge that succeeded and is then reported paid again under another operator
transaction id: looked at, never dropped. Given back as a late payment once the operator
confirms that transaction (not counted in amount_refunded), kept for staff otherwise; asked
again by the sweep, with growing waits within RECONCILIATION_WINDOW, while the operator's answers
say nothing; never a second prompt."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from payments import tasks
from payments.models import Charge, ExtraPayment, LedgerEntry, Refund
from payments.providers.base import ProviderOutcome
from payments.representations import refund_repr
from payments.services import charges, ledger, refunds
from sandbox.models import SandboxTransaction
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import race

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


def test_the_sweep_asks_again_with_growing_waits_until_the_window_ends(
    merchant, settings, eager_tasks
):
    settings.RECONCILIATION_WINDOW = 7200
    settings.SANDBOX_MOBILE_MONEY_DELAY = 10**6  # the operator never says anything
    charge = succeeded_mobile_money_charge(merchant)
    second = second_sandbox_payment(charge)
    charges.charge_extra_payment_reported(charge_id=charge.id, reference=second.id, answer={})
    extra = ExtraPayment.objects.get(charge=charge)
    reported_at = extra.created_at
    with time_machine.travel(extra.next_check_at - timedelta(seconds=1), tick=False):
        assert tasks.charges_extra_payments_check_due() == 0  # not due yet
    checks = []
    while extra.next_check_at is not None:
        due = extra.next_check_at
        with time_machine.travel(due, tick=False):
            assert tasks.charges_extra_payments_check_due() == 1
            assert tasks.charges_extra_payments_check_due() == 0  # asked once
        extra.refresh_from_db()
        checks.append((due - reported_at).total_seconds())
    # After 1 min, then the waits of RECONCILIATION_BACKOFF; the last on the window's end.
    assert checks == [60, 360, 1260, 4860, 7200]
    assert (extra.status, extra.check_count, extra.refund) == ("reported", 5, None)
    with time_machine.travel(reported_at + timedelta(days=30), tick=False):
        assert tasks.charges_extra_payments_check_due() == 0  # left to staff
    assert not Refund.objects.exists()


def test_a_second_payment_confirmed_on_a_later_check_is_given_back_once(
    merchant, settings, eager_tasks, django_capture_on_commit_callbacks
):
    charge = succeeded_mobile_money_charge(merchant)
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3600  # no answer from the operator yet
    second = second_sandbox_payment(charge)
    charges.charge_extra_payment_reported(charge_id=charge.id, reference=second.id, answer={})
    assert charges.charge_extra_payment_check(charge_id=charge.id, reference=second.id).status == (
        "reported"
    )
    extra = ExtraPayment.objects.get(charge=charge)
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0  # the operator knows it now
    with (
        time_machine.travel(extra.next_check_at, tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        assert tasks.charges_extra_payments_check_due() == 1
        assert tasks.charges_extra_payments_check_due() == 0
    extra.refresh_from_db()
    assert (extra.status, extra.next_check_at) == ("confirmed", None)
    [refund] = Refund.objects.filter(charge=charge)
    assert (refund, refund.reason, refund.payment_reference, refund.status) == (
        extra.refund,
        "late_payment",
        second.id,
        "succeeded",
    )
    with time_machine.travel(timezone.now() + timedelta(days=1), tick=False):
        assert tasks.charges_extra_payments_check_due() == 0
    charge.refresh_from_db()
    assert charge.amount_refunded == 0
    assert ledger.ledger_check() == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_ask_about_each_reported_payment_once(merchant, settings, eager_tasks):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 10**6
    charge = succeeded_mobile_money_charge(merchant)
    for number in range(40):
        charges.charge_extra_payment_reported(
            charge_id=charge.id, reference=f"TX-{number}", answer={}
        )
    reported = ExtraPayment.objects.filter(charge=charge)
    with time_machine.travel(timezone.now() + timedelta(minutes=2), tick=False):
        first, second = race(tasks.charges_extra_payments_check_due, count=2)
    assert first + second == 40
    assert sorted(set(reported.values_list("check_count", flat=True))) == [1]
    assert all(len(extra.answers) == 2 for extra in reported)  # reported, then one answer
