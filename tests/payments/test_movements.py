"""The one lifecycle of every movement of money (services.movements), kind by kind: a charge, a
refund and a payout each go from pending to every final status through the same steps. Answers
while pending keep it pending, counted and asked again by the kind's backoff; a final answer sets
the status, its timestamps, the kind's ledger rows and one event; an answer after that changes
nothing but the answers kept for staff."""

from dataclasses import dataclass
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.utils import timezone

from payments.models import Charge, LedgerEntry, Payout, Refund
from payments.providers.base import ProviderOutcome
from payments.services import charges, movements, payouts, refunds
from payments.services.ledger import ledger_check
from tests.factories import sent_charge, sent_payout, succeeded_mobile_money_charge
from tests.helpers import race
from webhooks.models import Event

PHONE = "+243812345678"


def pending_charge(merchant) -> Charge:
    return sent_charge(merchant, phone=PHONE)


def pending_refund(merchant) -> Refund:
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    refund = refunds.refund_create(
        charge=charge, amount=4000, metadata={"sandbox_refund": "pending"}
    )
    assert refund.status == "pending" and refund.provider_requested_at is not None
    return refund


def pending_payout(merchant) -> Payout:
    succeeded_mobile_money_charge(merchant, amount=50000)
    return sent_payout(merchant, amount=5000)


@dataclass(frozen=True)
class Case:
    kind: movements.Kind
    make: object  # merchant -> a pending movement, sent to its provider
    # The waits after the first and the second status check that said nothing.
    waits: tuple[float, float]
    # By the provider's final answer (and the failure code it gives): the status it becomes,
    # its failure code, its ledger rows (type, sign) in order.
    finals: dict

    @property
    def name(self) -> str:
        return self.kind.name

    def apply(self, pk: str, outcome: ProviderOutcome, counter: str | None = None):
        return movements.movement_apply_outcome(self.kind, pk=pk, outcome=outcome, counter=counter)

    def ledger(self, row) -> list[tuple[str, int]]:
        return list(
            LedgerEntry.objects.filter(source=row.pk)
            .order_by("created_at", "id")
            .values_list("type", "amount")
        )


CHARGE = Case(
    charges.CHARGE,
    pending_charge,
    (charges.POLL_BACKOFF[1], charges.POLL_BACKOFF[2]),
    {
        "succeeded": ("", "succeeded", "", [("charge", 1)]),
        "failed": ("provider_error", "failed", "provider_error", []),
        "declined": ("insufficient_funds", "declined", "insufficient_funds", []),
    },
)
REFUND = Case(
    refunds.REFUND,
    pending_refund,
    (refunds.REFUND_POLL_INTERVAL, refunds.REFUND_POLL_INTERVAL),
    {
        "succeeded": ("", "succeeded", "", [("refund", -1)]),
        # A failure the provider did not explain is the refund kind's own.
        "failed": ("", "failed", "provider_error", [("refund", -1), ("refund_failure", 1)]),
        # A refund has no declined status: a provider's decline is its failure.
        "declined": (
            "insufficient_funds",
            "failed",
            "insufficient_funds",
            [("refund", -1), ("refund_failure", 1)],
        ),
    },
)
PAYOUT = Case(
    payouts.PAYOUT,
    pending_payout,
    (payouts.PAYOUT_BACKOFF[1], payouts.PAYOUT_BACKOFF[2]),
    {
        "succeeded": ("", "succeeded", "", [("payout", -1)]),
        "failed": (
            "recipient_invalid",
            "failed",
            "recipient_invalid",
            [("payout", -1), ("payout_failure", 1)],
        ),
    },
)
CASES = [
    pytest.param(case, answer, id=f"{case.name}-{answer}")
    for case in (CHARGE, REFUND, PAYOUT)
    for answer in case.finals
]


def event_types(row) -> list[str]:
    return list(
        Event.objects.filter(data__object__id=row.pk)
        .order_by("created_at", "id")
        .values_list("type", flat=True)
    )


def answer(status: str, n: int, code: str = "") -> ProviderOutcome:
    """The provider's n-th answer; a failure it explains with `code` it explains in words too."""
    return ProviderOutcome(
        status=status,
        failure_code=code,
        failure_message=f"The provider says {code}." if code else "",
        raw={"answer": n, "status": status},
    )


@pytest.mark.django_db
@pytest.mark.parametrize("case, final", CASES)
def test_every_kind_goes_from_pending_to_each_final_status_once(merchant, case, final):
    row = case.make(merchant)
    model = type(row)
    given, status, code, rows = case.finals[final]
    reserved = case.ledger(row)
    answers = len(row.provider_raw)
    start = timezone.now().replace(microsecond=0) + timedelta(seconds=1)
    with time_machine.travel(start, tick=False) as clock:
        # Status checks that say nothing: counted, pending, asked again later and later.
        for n, wait in enumerate(case.waits, start=1):
            row = case.apply(row.pk, answer("pending", n), counter="check_count")
            assert (row.status, row.check_count) == ("pending", n)
            assert row.next_check_at == timezone.now() + timedelta(seconds=wait)
            assert row.finalized_at is None
            clock.shift(timedelta(seconds=wait))
        assert case.ledger(row) == reserved and event_types(row) == []

        final_at = timezone.now()
        row = case.apply(row.pk, answer(final, 3, given), counter="check_count")
        assert (row.status, row.failure_code, row.check_count) == (status, code, 3)
        assert bool(row.failure_message) == (status != "succeeded")
        assert row.next_check_at is None
        assert row.finalized_at == row.updated_at == final_at
        assert [(kind, amount // row.amount) for kind, amount in case.ledger(row)] == rows
        assert event_types(row) == [f"{case.name}.{status}"]
        assert len(row.provider_raw) == answers + 3
        if case.name == "refund":  # a failed refund's amount is refundable again
            refunded = Charge.objects.get(pk=row.charge_id).amount_refunded
            assert refunded == (row.amount if status == "succeeded" else 0)

        # Every answer after that is kept for staff and changes nothing else.
        clock.shift(timedelta(hours=1))
        later = [s for s in ("pending", *case.finals) if s != final]
        if case.name == "charge" and status != "succeeded":
            later.remove("succeeded")  # a late payment: given back (tests/payments/charges)
        for n, said in enumerate(later, start=4):
            row = case.apply(
                row.pk, answer(said, n, "" if said == "succeeded" else "provider_error")
            )
        row = model.objects.get(pk=row.pk)
        assert (row.status, row.failure_code, row.check_count) == (status, code, 3)
        assert row.finalized_at == row.updated_at == final_at and row.next_check_at is None
        assert [(kind, amount // row.amount) for kind, amount in case.ledger(row)] == rows
        assert event_types(row) == [f"{case.name}.{status}"]
        assert len(row.provider_raw) == answers + 3 + len(later)
    assert ledger_check() == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    "case, limit, ends",
    [
        # A charge's deadline: then it fails by our clock, and is reconciled.
        (CHARGE, settings.MOBILE_MONEY_PROMPT_TIMEOUT, ("failed", "timeout")),
        # A payout's reconciliation window: then it is left for staff, pending.
        (PAYOUT, settings.RECONCILIATION_WINDOW, ("pending", "")),
    ],
    ids=["charge", "payout"],
)
def test_no_check_is_planned_after_the_kinds_limit(merchant, case, limit, ends):
    row = case.make(merchant)
    end = row.provider_requested_at + timedelta(seconds=limit)
    with time_machine.travel(end - timedelta(seconds=5), tick=False):
        row = case.apply(row.pk, answer("pending", 1), counter="check_count")
        assert row.next_check_at == end  # the last check falls on the limit, not after it
    with time_machine.travel(end, tick=False):
        row = case.apply(row.pk, answer("pending", 2), counter="check_count")
    assert (row.status, row.failure_code, row.next_check_at) == (*ends, None)
    if row.status == "pending":
        assert payouts.is_waiting_for_staff(row) and event_types(row) == []
    else:
        assert row.finalized_at == end and row.reconcile_next_at is not None
        assert event_types(row) == [f"{case.name}.{row.status}"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("case", [CHARGE, REFUND, PAYOUT], ids=lambda case: case.name)
def test_status_checks_answered_at_once_are_each_counted(merchant, case):
    row = case.make(merchant)
    results = race(lambda: case.apply(row.pk, answer("pending", 1), counter="check_count"), count=6)
    assert all(not isinstance(result, Exception) for result in results), results
    assert type(row).objects.get(pk=row.pk).check_count == 6
