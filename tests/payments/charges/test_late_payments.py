"""Late payments: deadlines that run from the prompt, the reconciliation window,
and the automatic refund of a payment made after its charge failed.

Time is moved with time-machine; nothing sleeps. The sandbox operator's 005 customer approves
the prompt only after its deadline.
"""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from core.errors import InvalidRequest, ProviderUnavailable
from payments import tasks
from payments.models import LedgerEntry, Refund
from payments.providers.base import ProviderOutcome
from payments.services import charges, payouts, refunds
from sandbox.models import SandboxTransaction
from tests.factories import (
    make_charge,
    prompt_sent,
    sent_charge,
    succeeded_mobile_money_charge,
    timed_out_charge,
)
from tests.helpers import admin_url
from webhooks.models import Event

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
LATE = "+243812345005"
SILENT = "+243812345003"
DAY = 24 * 3600


@pytest.fixture
def timeouts(settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3
    settings.MOBILE_MONEY_PROMPT_TIMEOUT = 300
    settings.RECONCILIATION_WINDOW = 2 * DAY
    settings.RECONCILIATION_BACKOFF = [60, 300, 900, 3600, 10800]
    return settings


def event_types(**filters):
    return list(
        Event.objects.filter(**filters).order_by("created_at").values_list("type", flat=True)
    )


# --- Deadlines ------------------------------------------------------------------------------------


def test_the_deadline_runs_from_the_prompt_not_from_creation(merchant, timeouts):
    # A broker backlog: the prompt leaves 200 s after the charge was created.
    charge = prompt_sent(make_charge(merchant, phone=SILENT, at=T0), at=T0 + timedelta(seconds=200))
    with time_machine.travel(T0 + timedelta(seconds=301), tick=False):
        charge = charges.charge_refresh(charge_id=charge.id)
        assert charge.status == "pending"  # 101 s after the prompt: the customer still has time
        # …and the next check is never later than the prompt's own deadline.
        assert charge.next_check_at <= T0 + timedelta(seconds=500)
    with time_machine.travel(T0 + timedelta(seconds=500), tick=False):
        charge = charges.charge_refresh(charge_id=charge.id)
    assert (charge.status, charge.failure_code) == ("failed", "timeout")
    assert charge.finalized_at == T0 + timedelta(seconds=500)


def test_a_prompt_that_could_not_leave_before_its_deadline_is_never_sent(merchant, timeouts):
    charge = prompt_sent(make_charge(merchant, phone=SILENT, at=T0), at=T0 + timedelta(seconds=301))
    assert (charge.status, charge.failure_code) == ("failed", "timeout")
    assert charge.provider_requested_at is None
    assert not SandboxTransaction.objects.filter(reference=charge.id).exists()
    assert event_types(data__object__id=charge.id) == ["charge.failed"]
    # Never sent, so the operator cannot have taken money: nothing to reconcile.
    assert charge.reconcile_next_at is None
    # A late retry of the request task changes nothing.
    assert prompt_sent(charge, at=T0 + timedelta(seconds=400)).status == "failed"
    assert event_types(data__object__id=charge.id) == ["charge.failed"]


def test_a_prompt_in_time_is_sent(merchant, timeouts):
    charge = prompt_sent(make_charge(merchant, phone=SILENT, at=T0), at=T0 + timedelta(seconds=299))
    assert charge.status == "pending"
    assert charge.provider_requested_at == T0 + timedelta(seconds=299)
    assert SandboxTransaction.objects.filter(reference=charge.id).count() == 1


def test_the_unsent_sweep_fails_overdue_charges_without_sending_them(merchant, timeouts):
    overdue = make_charge(merchant, phone=SILENT, at=T0)
    with time_machine.travel(T0 + timedelta(seconds=301), tick=False):
        tasks.charges_poll_due()
    overdue.refresh_from_db()
    assert (overdue.status, overdue.failure_code) == ("failed", "timeout")
    assert overdue.provider_requested_at is None
    assert not SandboxTransaction.objects.filter(reference=overdue.id).exists()


def test_the_unsent_sweep_still_sends_charges_in_time(merchant, timeouts, eager_tasks):
    in_time = make_charge(merchant, phone=SILENT, at=T0 + timedelta(seconds=250))
    with time_machine.travel(T0 + timedelta(seconds=301), tick=False):
        tasks.charges_poll_due()
    in_time.refresh_from_db()
    assert in_time.status == "pending"
    assert in_time.provider_requested_at == T0 + timedelta(seconds=301)
    assert SandboxTransaction.objects.filter(reference=in_time.id).count() == 1


# --- Reconciliation ---------------------------------------------------------------------------------


def test_a_timed_out_charge_is_asked_about_with_growing_waits_for_the_window(merchant, timeouts):
    charge = timed_out_charge(merchant, phone=SILENT, at=T0)
    failed_at = T0 + timedelta(seconds=300)
    assert charge.reconcile_until == failed_at + timedelta(seconds=2 * DAY)
    waits, now = [], failed_at
    with time_machine.travel(charge.reconcile_next_at, tick=False) as clock:
        waits.append((charge.reconcile_next_at - now).total_seconds())
        while charge.reconcile_next_at is not None:
            now = charge.reconcile_next_at
            clock.move_to(now)
            charge = charges.charge_reconcile(charge_id=charge.id)
            if charge.reconcile_next_at is not None:
                waits.append((charge.reconcile_next_at - now).total_seconds())
    assert waits[:5] == [60, 300, 900, 3600, 10800]
    assert set(waits[5:-1]) == {10800}
    assert 0 < waits[-1] <= 10800  # the last check falls exactly on the window's end
    assert now == charge.reconcile_until
    assert sum(waits) == 2 * DAY
    assert charge.reconcile_count == len(waits)
    assert (charge.status, charge.amount_refunded) == ("failed", 0)
    assert event_types(data__object__id=charge.id) == ["charge.failed"]


def test_the_reconciliation_sweep_checks_only_due_charges(merchant, timeouts, eager_tasks):
    charge = timed_out_charge(merchant, phone=SILENT, at=T0)
    with time_machine.travel(charge.reconcile_next_at - timedelta(seconds=1), tick=False):
        assert tasks.charges_reconcile_due() == 0
    with time_machine.travel(charge.reconcile_next_at, tick=False):
        assert tasks.charges_reconcile_due() == 1
    charge.refresh_from_db()
    assert charge.reconcile_count == 1
    assert charge.reconcile_next_at == T0 + timedelta(seconds=300 + 60 + 300)


def test_a_late_payment_keeps_the_charge_failed_and_is_refunded_in_full(
    merchant, api, timeouts, eager_tasks, django_capture_on_commit_callbacks
):
    charge = timed_out_charge(merchant, phone=LATE, at=T0)
    assert event_types(data__object__id=charge.id) == ["charge.failed"]
    # The check at the deadline heard nothing: the customer approves only afterwards.
    assert SandboxTransaction.objects.get(reference=charge.id).decision == "late"
    with (
        time_machine.travel(charge.reconcile_next_at, tick=False),
        django_capture_on_commit_callbacks(execute=True),
    ):
        charge = charges.charge_reconcile(charge_id=charge.id)
        late_at = datetime.now(UTC)

    assert (charge.status, charge.failure_code) == ("failed", "timeout")  # never changes
    assert charge.late_payment_at == late_at
    assert charge.reconcile_next_at is None
    assert charge.provider_raw[-1]["late_payment"]["sandbox"] == "succeeded"
    [refund] = Refund.objects.filter(charge=charge)
    assert (refund.amount, refund.reason, refund.status) == (5000, "late_payment", "succeeded")
    assert refund.provider_requested_at is not None  # sent by the task, after the commit

    body = api.get(f"/v1/charges/{charge.id}").json()
    assert (body["status"], body["failure_code"], body["amount_refunded"]) == (
        "failed",
        "timeout",
        5000,
    )
    refunds = api.get(f"/v1/charges/{charge.id}/refunds").json()["data"]
    assert [(r["id"], r["reason"], r["status"]) for r in refunds] == [
        (refund.id, "late_payment", "succeeded")
    ]
    assert event_types(data__object__id=charge.id) == ["charge.failed"]
    assert event_types(data__object__id=refund.id) == ["refund.succeeded"]


def test_a_lost_send_task_of_a_late_refund_is_made_good_by_the_poller(
    merchant, timeouts, eager_tasks
):
    charge = timed_out_charge(merchant, phone=LATE, at=T0)
    with time_machine.travel(charge.reconcile_next_at, tick=False):
        charge = charges.charge_apply_outcome(
            charge_id=charge.id, outcome=ProviderOutcome(status="succeeded")
        )  # no commit in this test: the send task is never published
    [refund] = Refund.objects.filter(charge=charge)
    assert refund.status == "pending" and refund.provider_requested_at is None
    with time_machine.travel(refund.next_check_at, tick=False):
        assert tasks.refunds_poll_due() == 1
    refund.refresh_from_db()
    assert refund.status == "succeeded"
    assert SandboxTransaction.objects.filter(kind="refund", attempt=refund.id).count() == 1


def test_a_late_success_reported_twice_is_refunded_once(merchant, timeouts):
    charge = timed_out_charge(merchant, phone=LATE, at=T0)
    for _ in range(3):
        charges.charge_apply_outcome(
            charge_id=charge.id, outcome=ProviderOutcome(status="succeeded", raw={"n": 1})
        )
    charge.refresh_from_db()
    assert Refund.objects.filter(charge=charge).count() == 1
    assert charge.amount_refunded == 5000 and charge.status == "failed"


def test_a_declined_charge_later_reported_paid_is_refunded_too(merchant, timeouts):
    charge = sent_charge(merchant, phone="+243812345001", at=T0)
    charge = charges.charge_apply_outcome(
        charge_id=charge.id, outcome=ProviderOutcome(status="declined", failure_code="x")
    )
    assert charge.reconcile_next_at is None  # the operator's own answer is not reconciled
    charge = charges.charge_apply_outcome(
        charge_id=charge.id, outcome=ProviderOutcome(status="succeeded")
    )
    assert charge.status == "declined"
    assert list(Refund.objects.filter(charge=charge).values_list("reason", "amount")) == [
        ("late_payment", 5000)
    ]


def test_an_operator_failure_ends_the_reconciliation(merchant, timeouts):
    charge = timed_out_charge(merchant, phone=SILENT, at=T0)
    charge = charges.charge_apply_outcome(
        charge_id=charge.id, outcome=ProviderOutcome(status="failed", failure_code="expired")
    )
    assert charge.reconcile_next_at is None
    assert (charge.status, charge.failure_code) == ("failed", "timeout")
    assert not Refund.objects.filter(charge=charge).exists()


def test_an_unreachable_operator_never_fails_a_charge_and_is_asked_again(merchant, timeouts):
    timeouts.PAYMENT_PROVIDERS = {
        **timeouts.PAYMENT_PROVIDERS,
        "test": {
            **timeouts.PAYMENT_PROVIDERS["test"],
            "VODACOM_MPESA": "tests.fakes.operators.UnreachableOperator",
        },
    }
    charge = sent_charge(merchant, phone=SILENT, at=T0)
    with time_machine.travel(T0 + timedelta(seconds=299), tick=False):
        charge = charges.charge_refresh(charge_id=charge.id)
    assert charge.status == "pending"  # a 503 says nothing: still pending
    assert "503" in charge.provider_raw[-1]["error"]
    with time_machine.travel(T0 + timedelta(seconds=300), tick=False):
        charge = charges.charge_refresh(charge_id=charge.id)
    # Failed by our own clock, and asked about again (its checks never reached the operator).
    assert (charge.status, charge.failure_code) == ("failed", "timeout")
    due = charge.reconcile_next_at
    with time_machine.travel(due, tick=False):
        charge = charges.charge_reconcile(charge_id=charge.id)
    assert charge.reconcile_next_at == due + timedelta(seconds=300)
    assert charge.status == "failed" and charge.late_payment_at is None


# --- What merchants may and may not do --------------------------------------------------------------


def test_merchants_cannot_give_the_late_payment_reason(api, merchant, timeouts):
    charge = sent_charge(merchant, phone="+243812345678", at=T0)
    with time_machine.travel(T0 + timedelta(seconds=3), tick=False):
        charge = charges.charge_refresh(charge_id=charge.id)
    assert charge.status == "succeeded"
    response = api.post(
        f"/v1/charges/{charge.id}/refunds", {"reason": "late_payment"}, format="json"
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request_error",
        "parameter_invalid",
        "reason",
    )
    with pytest.raises(InvalidRequest) as refused:
        refunds.refund_create(charge=charge, reason="late_payment")
    assert (refused.value.code, refused.value.param) == ("parameter_invalid", "reason")
    assert not Refund.objects.exists()
    ok = api.post(f"/v1/charges/{charge.id}/refunds", {"reason": "duplicate"}, format="json")
    assert ok.status_code == 201


def test_merchants_still_cannot_refund_a_failed_charge(api, merchant, timeouts):
    charge = timed_out_charge(merchant, phone=LATE, at=T0)
    response = api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json")
    assert response.json()["error"]["code"] == "charge_not_refundable"
    charges.charge_apply_outcome(charge_id=charge.id, outcome=ProviderOutcome(status="succeeded"))
    response = api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json")
    assert response.json()["error"]["code"] == "charge_not_refundable"
    assert Refund.objects.filter(charge=charge).count() == 1


# --- Staff ----------------------------------------------------------------------------------------


def test_staff_find_late_payments_with_the_operators_answers(staff, merchant, timeouts):
    late = timed_out_charge(merchant, phone=LATE, at=T0)
    charges.charge_apply_outcome(
        charge_id=late.id, outcome=ProviderOutcome(status="succeeded", raw={"op": "PAID-LATE"})
    )
    other = timed_out_charge(merchant, phone=SILENT, at=T0)

    def listed(url):
        response = staff.get(url)
        assert response.status_code == 200
        return {row.id for row in response.context["cl"].result_list}

    assert listed("/admin/payments/charge/?late_payment=yes") == {late.id}
    assert listed("/admin/payments/charge/?late_payment=no") == {other.id}
    page = staff.get(admin_url(late)).content.decode()
    assert "PAID-LATE" in page and "Rapprochement et paiement tardif" in page  # French admin
    english = staff.get(admin_url(late), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Reconciliation and late payment" in english
    [refund] = Refund.objects.filter(charge=late)
    assert listed("/admin/payments/refund/?reason__exact=late_payment") == {refund.id}


def late_payment_refused_by_the_operator(merchant) -> tuple:
    """A late payment whose automatic refund the operator answered "failed": its money is back
    in the merchant's balance (late_payment +, refund −, refund_failure +)."""
    late = timed_out_charge(merchant, phone=LATE, at=T0)
    charges.charge_apply_outcome(charge_id=late.id, outcome=ProviderOutcome(status="succeeded"))
    [first] = Refund.objects.filter(charge=late)
    refunds.refund_apply_outcome(
        refund_id=first.id,
        outcome=ProviderOutcome(status="failed", failure_code="provider_error"),
    )
    return late, first


def give_back_again(staff, *charges_selected, language="en"):
    response = staff.post(
        "/admin/payments/charge/",
        {"action": "give_back_again", "_selected_action": [c.id for c in charges_selected]},
        follow=True,
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert response.status_code == 200
    return [str(message) for message in response.context["messages"]]


def test_staff_give_a_late_payment_back_again_when_the_operator_refused_its_refund(
    staff, merchant, timeouts
):
    late, first = late_payment_refused_by_the_operator(merchant)
    assert balance_of(merchant) == 5000  # the customer's money, in the merchant's balance
    other = timed_out_charge(merchant, phone=SILENT, at=T0)

    shown = give_back_again(staff, late, other)
    again = Refund.objects.filter(charge=late).exclude(pk=first.pk).get()
    assert (again.amount, again.reason, again.status) == (5000, "late_payment", "pending")
    assert f"{late.id} given back again: refund {again.id}." in shown
    assert f"{other.id} is no late payment: nothing to give back." in shown
    assert balance_of(merchant) == 0
    assert sorted(
        LedgerEntry.objects.filter(source__in=[late.id, first.id, again.id]).values_list(
            "source", "type", "amount"
        )
    ) == sorted(
        [
            (late.id, "late_payment", 5000),
            (first.id, "refund", -5000),
            (first.id, "refund_failure", 5000),
            (again.id, "refund", -5000),
        ]
    )
    assert not Refund.objects.filter(charge=other).exists()

    # Sent twice (or while the new refund is under way): nothing more.
    shown = give_back_again(staff, late, language="fr")
    assert Refund.objects.filter(charge=late).count() == 2
    assert any(late.id in message and "rien à faire" in message for message in shown), shown


def test_a_late_payment_given_back_again_never_takes_the_balance_below_zero(
    staff, merchant, timeouts
):
    """The failed refund put the money in the merchant's balance; paid out since, it cannot be
    given back from nothing: refused in words, nothing written."""
    succeeded_mobile_money_charge(merchant, amount=10000)
    late, _first = late_payment_refused_by_the_operator(merchant)
    payouts.payout_create(
        merchant=merchant,
        livemode=False,
        amount=15000,
        currency="CDF",
        phone="+243971234567",
        network="AIRTEL_MONEY",
    )
    assert balance_of(merchant) == 0
    rows = LedgerEntry.objects.count()
    shown = give_back_again(staff, late)
    assert any("not given back" in m and "balance is 0" in m for m in shown), shown
    assert Refund.objects.filter(charge=late).count() == 1
    assert LedgerEntry.objects.count() == rows
    assert balance_of(merchant) == 0


def test_the_automatic_refund_of_a_late_payment_is_made_once_even_asked_again(merchant, timeouts):
    """The staff's give-back and the automatic refund share one rule: nothing remains while a
    refund is under way or succeeded."""
    late = timed_out_charge(merchant, phone=LATE, at=T0)
    charges.charge_apply_outcome(charge_id=late.id, outcome=ProviderOutcome(status="succeeded"))
    assert refunds.late_payment_give_back_again(charge_id=late.id) is None
    assert refunds.refund_create_for_late_payment(charge_id=late.id) is None
    assert Refund.objects.filter(charge=late).count() == 1


def balance_of(merchant) -> int:
    return sum(
        LedgerEntry.objects.filter(merchant=merchant, livemode=False, currency="CDF").values_list(
            "amount", flat=True
        )
    )


def without_vodacom(settings):
    """The settings with the test mode's VODACOM_MPESA adapter removed; restores them."""
    providers = settings.PAYMENT_PROVIDERS
    settings.PAYMENT_PROVIDERS = {
        **providers,
        "test": {k: v for k, v in providers["test"].items() if k != "VODACOM_MPESA"},
    }
    return lambda: setattr(settings, "PAYMENT_PROVIDERS", providers)


def test_an_operator_no_longer_connected_takes_no_prompt_until_it_is_back(merchant, timeouts):
    """Its adapter removed between creation and sending (a deploy that lost its settings): the
    charge is not claimed as sent, so nothing waits on a prompt that never left; the staff see
    why in its answers (once, not at every sweep), and once the operator is back in time the
    prompt is sent, once."""
    charge = make_charge(merchant, phone=SILENT, at=T0)
    restore = without_vodacom(timeouts)
    for seconds in (0, 30, 35):  # the request task, then the unsent-charge sweep's retries
        charge = prompt_sent(charge, at=T0 + timedelta(seconds=seconds))
        assert (charge.status, charge.provider_requested_at) == ("pending", None)
    [said] = charge.provider_raw
    assert "Vodacom M-Pesa is not available in test mode" in said["error"]
    assert not SandboxTransaction.objects.filter(reference=charge.id).exists()
    restore()
    charge = prompt_sent(charge, at=T0 + timedelta(seconds=60))
    assert charge.provider_requested_at == T0 + timedelta(seconds=60)
    prompt_sent(charge, at=T0 + timedelta(seconds=65))  # a duplicate task sends nothing more
    assert SandboxTransaction.objects.filter(reference=charge.id).count() == 1


def test_an_operator_not_back_before_the_deadline_leaves_a_charge_failed_never_sent(
    merchant, timeouts
):
    charge = make_charge(merchant, phone=SILENT, at=T0)
    without_vodacom(timeouts)
    prompt_sent(charge, at=T0)
    with time_machine.travel(T0 + timedelta(seconds=301), tick=False):
        charges.charges_poll_due()  # the unsent-charge sweep
    charge.refresh_from_db()
    assert (charge.status, charge.failure_code) == ("failed", "timeout")
    assert charge.provider_requested_at is None
    assert charge.reconcile_next_at is None  # never sent: nothing to reconcile
    assert event_types(data__object__id=charge.id) == ["charge.failed"]


def test_a_sent_charge_whose_operator_is_gone_fails_by_our_clock_and_is_reconciled(
    merchant, timeouts
):
    """The workers' status checks hear nothing, as from an operator that does not answer: the
    charge fails `timeout` at its deadline instead of staying pending for ever, and is asked
    about for the reconciliation window (a payment found later is given back). Staff asking
    now are told that the operator cannot be asked."""
    charge = sent_charge(merchant, phone=SILENT, at=T0)
    without_vodacom(timeouts)
    with time_machine.travel(T0 + timedelta(seconds=60), tick=False):
        tasks.charge_refresh(charge.id)
    charge.refresh_from_db()
    assert charge.status == "pending"
    assert "not available" in charge.provider_raw[-1]["error"]
    with time_machine.travel(T0 + timedelta(seconds=301), tick=False):
        with pytest.raises(ProviderUnavailable):
            charges.charge_refresh(charge_id=charge.id)  # the staff's "check now"
        tasks.charge_refresh(charge.id)
    charge.refresh_from_db()
    assert (charge.status, charge.failure_code) == ("failed", "timeout")
    assert charge.reconcile_next_at == T0 + timedelta(seconds=361)
    due = charge.reconcile_next_at
    with time_machine.travel(due, tick=False):
        charge = charges.charge_reconcile(charge_id=charge.id)
    assert charge.status == "failed" and charge.late_payment_at is None
    assert charge.reconcile_next_at == due + timedelta(seconds=300)


def test_a_refund_whose_operator_is_gone_is_sent_once_it_is_back(merchant, timeouts):
    """The automatic refund of a late payment, its task run while the operator's adapter is
    removed: the refund is not claimed as sent (it would have waited for ever on a request that
    never left); its next checks send it once the operator is back, once."""
    charge = timed_out_charge(merchant, phone=LATE, at=T0)
    restore = without_vodacom(timeouts)
    # the operator's word came (its callback) just before the adapter went
    refund = charges.charge_late_payment(charge_id=charge.id, answer={"status": "succeeded"})
    assert refund.reason == "late_payment"
    refund = refunds.refund_send(refund_id=refund.id)  # its task
    assert (refund.status, refund.provider_requested_at) == ("pending", None)
    tasks.refund_refresh(refund.id)  # the poller's next check: still nothing to send to
    refund.refresh_from_db()
    assert (refund.status, refund.provider_requested_at) == ("pending", None)
    restore()
    tasks.refund_refresh(refund.id)
    tasks.refund_refresh(refund.id)
    refund.refresh_from_db()
    assert refund.provider_requested_at is not None
    assert refund.status == "succeeded"
    assert SandboxTransaction.objects.filter(reference=refund.id).count() == 1
