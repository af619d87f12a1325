"""The ledger: one immutable row per movement of a merchant's money, written by the locked state
change that causes it, in its transaction. A balance is a sum of rows, never a counter.

    charge succeeded         + amount   (charge)
    late payment             + amount   (late_payment: paid after the charge failed)
    refund reserved          − amount   (refund)
    refund failed            + amount   (refund_failure)
    payout reserved          − amount   (payout)
    payout failed            + amount   (payout_failure)
"""

from dataclasses import dataclass

from django.db import connection
from django.db.models import Count, Q, Sum

from payments.models import (
    Charge,
    ChargeStatus,
    LedgerEntry,
    LedgerType,
    Payout,
    PayoutStatus,
    Refund,
    RefundStatus,
)

SIGN = {
    LedgerType.CHARGE: 1,
    LedgerType.LATE_PAYMENT: 1,
    LedgerType.REFUND: -1,
    LedgerType.REFUND_FAILURE: 1,
    LedgerType.PAYOUT: -1,
    LedgerType.PAYOUT_FAILURE: 1,
}


def ledger_record(*, type: str, source: Charge | Refund | Payout) -> LedgerEntry:
    """Write the row of one movement. Only inside the transaction of the state change that
    causes it (it fails otherwise); a second row of the same type for the same source is refused
    by the database."""
    if not connection.in_atomic_block:
        raise RuntimeError("a ledger row is written only inside its state change's transaction")
    charge = source if isinstance(source, Charge) else getattr(source, "charge", None)
    return LedgerEntry.objects.create(
        merchant_id=source.merchant_id,
        livemode=source.livemode,
        currency=source.currency,
        type=type,
        amount=SIGN[type] * source.amount,
        source=source.id,
        charge=charge,
        refund=source if isinstance(source, Refund) else None,
        payout=source if isinstance(source, Payout) else None,
    )


@dataclass(frozen=True)
class Discrepancy:
    merchant_id: str
    livemode: bool
    currency: str
    problem: str


def _expected_rows() -> dict[tuple, dict[str, int]]:
    """(merchant, livemode, currency) → {type: (count, sum)} as the charges, refunds and payouts
    say the ledger must hold."""
    expected: dict[tuple, dict[str, tuple[int, int]]] = {}

    def add(rows, kind: str, sign: int) -> None:
        for row in rows:
            key = (row["merchant_id"], row["livemode"], row["currency"])
            expected.setdefault(key, {})[kind] = (row["n"], sign * (row["total"] or 0))

    def grouped(qs):
        return qs.values("merchant_id", "livemode", "currency").annotate(
            n=Count("id"), total=Sum("amount")
        )

    add(grouped(Charge.objects.filter(status=ChargeStatus.SUCCEEDED)), LedgerType.CHARGE, 1)
    late = Charge.objects.filter(late_payment_at__isnull=False).exclude(
        status=ChargeStatus.SUCCEEDED
    )
    add(grouped(late), LedgerType.LATE_PAYMENT, 1)
    add(grouped(Refund.objects.all()), LedgerType.REFUND, -1)
    add(grouped(Refund.objects.filter(status=RefundStatus.FAILED)), LedgerType.REFUND_FAILURE, 1)
    add(grouped(Payout.objects.all()), LedgerType.PAYOUT, -1)
    add(grouped(Payout.objects.filter(status=PayoutStatus.FAILED)), LedgerType.PAYOUT_FAILURE, 1)
    return expected


def ledger_check() -> list[Discrepancy]:
    """Every way the ledger disagrees with the charges, refunds and payouts it comes from, per
    merchant, mode and currency: the count and sum of each type of row, and the balance. Empty
    when the books are right."""
    expected = _expected_rows()
    actual: dict[tuple, dict[str, tuple[int, int]]] = {}
    rows = LedgerEntry.objects.values("merchant_id", "livemode", "currency", "type").annotate(
        n=Count("id"), total=Sum("amount")
    )
    for row in rows:
        key = (row["merchant_id"], row["livemode"], row["currency"])
        actual.setdefault(key, {})[row["type"]] = (row["n"], row["total"] or 0)
    problems = []
    for key in sorted(set(expected) | set(actual), key=str):
        want, have = expected.get(key, {}), actual.get(key, {})
        for kind in LedgerType.values:
            if want.get(kind, (0, 0)) != have.get(kind, (0, 0)):
                problems.append(
                    Discrepancy(
                        *key,
                        f"{kind}: expected {want.get(kind, (0, 0))} (rows, sum), "
                        f"the ledger has {have.get(kind, (0, 0))}",
                    )
                )
        balance = sum(total for _, total in have.values())
        if balance != sum(total for _, total in want.values()):
            problems.append(Discrepancy(*key, f"balance {balance} differs from its sources"))
    unlinked = LedgerEntry.objects.filter(
        Q(type__in=[LedgerType.CHARGE, LedgerType.LATE_PAYMENT], charge__isnull=True)
        | Q(type__in=[LedgerType.REFUND, LedgerType.REFUND_FAILURE], refund__isnull=True)
        | Q(type__in=[LedgerType.PAYOUT, LedgerType.PAYOUT_FAILURE], payout__isnull=True)
    ).values_list("merchant_id", "livemode", "currency", "id")
    for merchant_id, livemode, currency, entry_id in unlinked:
        problems.append(Discrepancy(merchant_id, livemode, currency, f"{entry_id} has no source"))
    return problems
