"""The ledger: one immutable row per movement of a merchant's money, written by the locked state
change that causes it, in its transaction. A balance is a sum of rows, never a counter.

Balance checkpoints keep that sum cheap for a merchant with millions of rows. Each row records
its epoch: how many checkpoints its merchant, mode and currency had when it was written. A
checkpoint adds up the rows of the current epoch onto the previous checkpoint's total and opens
the next epoch, so a balance is the last checkpoint's total plus the rows of its epoch
(selectors.balance_sums, one statement). Correct only if no row of an epoch can appear once its
checkpoint is written: every writer holds a shared lock on its merchant, mode and currency from
before it reads the epoch until its transaction ends, and the checkpoint takes the same lock
exclusively, so it waits for every transaction still writing rows and none starts meanwhile.

                              amount     fee
    charge succeeded         + amount   + its fee   (charge; available after its plan's delay)
    late payment             + amount   0           (late_payment: paid after the charge
                                                     failed; or another payment of a charge,
                                                     with its refund as source, given back)
    refund reserved          − amount   0           (refund: the charge's fee is kept)
    refund failed            + amount   0           (refund_failure)
    payout reserved          − amount   + its fee   (payout)
    payout failed            + amount   − its fee   (payout_failure: both given back)
    settlement reserved      − amount   + its fee   (settlement)
    settlement failed        + amount   − its fee   (settlement_failure: both given back)

A row moves the balance by its net, amount − fee. It is available from available_on: a charge's
once its plan's delay has passed, every other row at once. The balance is `available` (the net
of rows available now) and `pending` (the others); pending rows are found by their own index
(ledger_pending_idx), so neither needs the history (selectors.balance_sums).

A payout and a merchant's refund draw on the available balance: balance_lock_check locks the
merchant's balance and checks that it covers what the movement takes (a payout's amount and
fee), in the transaction that then writes the row.
"""

import hashlib
import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Exists, F, OuterRef, Q, Sum
from django.utils import timezone

from core.errors import Amount, BalanceInsufficient
from payments import pricing, selectors
from payments.models import (
    BalanceCheckpoint,
    Charge,
    ChargeStatus,
    LedgerEntry,
    LedgerType,
    Merchant,
    Payout,
    PayoutStatus,
    Refund,
    RefundStatus,
    Settlement,
    SettlementStatus,
)
from payments.services import queues

log = logging.getLogger(__name__)

SIGN = {
    LedgerType.CHARGE: 1,
    LedgerType.LATE_PAYMENT: 1,
    LedgerType.REFUND: -1,
    LedgerType.REFUND_FAILURE: 1,
    LedgerType.PAYOUT: -1,
    LedgerType.PAYOUT_FAILURE: 1,
    LedgerType.SETTLEMENT: -1,
    LedgerType.SETTLEMENT_FAILURE: 1,
}


# What a row's fee is, by its type (fee_details' `type`).
FEE_TYPE = {
    LedgerType.CHARGE: "processing_fee",
    LedgerType.PAYOUT: "payout_fee",
    LedgerType.PAYOUT_FAILURE: "payout_fee",
    LedgerType.SETTLEMENT: "settlement_fee",
    LedgerType.SETTLEMENT_FAILURE: "settlement_fee",
}


def _fee_and_available_on(
    type: str, source: Charge | Refund | Payout | Settlement, now: datetime
) -> tuple[int, datetime]:
    """The fee a row of this type charges (the module's table) and when its net is available."""
    if type == LedgerType.CHARGE:
        delay = timedelta(days=source.fee_available_after_days or 0)
        return pricing.charge_fee(source), now + delay
    if type in (LedgerType.PAYOUT, LedgerType.SETTLEMENT):
        return source.fee, now
    if type in (LedgerType.PAYOUT_FAILURE, LedgerType.SETTLEMENT_FAILURE):
        return -source.fee, now
    return 0, now


def ledger_record(*, type: str, source: Charge | Refund | Payout | Settlement) -> LedgerEntry:
    """Write the row of one movement. Only inside the transaction of the state change that
    causes it (it fails otherwise); a second row of the same type for the same source is refused
    by the database."""
    if not connection.in_atomic_block:
        raise RuntimeError("a ledger row is written only inside its state change's transaction")
    charge = source if isinstance(source, Charge) else getattr(source, "charge", None)
    key = (source.merchant_id, source.livemode, source.currency)
    _lock(*key, exclusive=False)  # held until the transaction ends: see the module's docstring
    now = timezone.now()
    fee, available_on = _fee_and_available_on(type, source, now)
    return LedgerEntry.objects.create(
        merchant_id=source.merchant_id,
        livemode=source.livemode,
        currency=source.currency,
        type=type,
        amount=SIGN[type] * source.amount,
        fee=fee,
        available_on=available_on,
        created_at=now,
        source=source.id,
        charge=charge,
        refund=source if isinstance(source, Refund) else None,
        payout=source if isinstance(source, Payout) else None,
        epoch=_last_checkpoint(*key)[0],  # read after the lock, by a statement of its own
    )


def balance_lock_check(
    *, merchant_id: str, livemode: bool, currency: str, amount: int, refused: str
) -> None:
    """The balance lock and check of every movement that draws on a merchant's balance (a
    payout, a merchant's refund), before its ledger row is written in the same transaction: the
    merchant's row is locked until the transaction ends, so that such movements of one merchant
    are checked one at a time, each seeing the rows of those before it, and never take the
    available balance below zero (pending money is not drawn on). BalanceInsufficient when the
    available balance of that mode and currency is less than `amount` (what the movement takes:
    a payout's amount and fee), said by `refused` (a sentence of the catalogue, gettext_noop, taking
    %(currency)s, %(available)s and %(amount)s).

    Lock order, the same on every path, so that none waits for another in a circle: the charge's
    row first (a refund; a payout has none), then this balance lock, then the ledger's own lock
    (ledger_record). Nothing takes a charge's row after the balance lock, and nothing takes the
    balance lock after writing a ledger row (the automatic refund of a late payment, written
    after its late_payment row, takes no balance lock: it is never refused)."""
    available = balance_lock_available(
        merchant_id=merchant_id, livemode=livemode, currency=currency
    )
    if amount > available:
        raise BalanceInsufficient(
            refused,
            params={
                "currency": currency,
                "available": Amount(available, currency),
                "amount": Amount(amount, currency),
            },
            param="amount",
        )


def balance_lock_available(*, merchant_id: str, livemode: bool, currency: str) -> int:
    """Take the balance lock (balance_lock_check's) and read the available balance of that mode
    and currency under it: for a movement whose amount depends on it (a settlement of all that
    is available)."""
    if not connection.in_atomic_block:
        raise RuntimeError("the balance is checked only inside the transaction that draws on it")
    # FOR NO KEY UPDATE, so that charges and refunds referring to the merchant are not held.
    Merchant.objects.select_for_update(no_key=True).filter(pk=merchant_id).get()
    sums = selectors.balance_sums(merchant=merchant_id, livemode=livemode, currencies=(currency,))
    transaction.on_commit(
        lambda: ledger_checkpoints_ask(merchant_id=merchant_id, livemode=livemode, sums=sums)
    )
    return sums[currency].available


# The advisory locks of balance checkpoints: PostgreSQL's two-key space (the idempotency layer's
# are single keys, a space of their own), this class of lock and a hash of the merchant, mode and
# currency. Two keys sharing a hash only wait for each other.
_LOCK_CLASS = 0x4C454447


def _lock(merchant_id: str, livemode: bool, currency: str, *, exclusive: bool) -> None:
    """Lock a merchant's mode and currency for this transaction: shared by the transactions that
    write ledger rows, exclusive for a checkpoint. SQLite runs one writing transaction at a time
    (transaction_mode IMMEDIATE), which is stronger."""
    if connection.vendor != "postgresql":
        return
    digest = hashlib.blake2b(f"{merchant_id}:{int(livemode)}:{currency}".encode(), digest_size=4)
    key = int.from_bytes(digest.digest(), "big", signed=True)
    function = "pg_advisory_xact_lock" if exclusive else "pg_advisory_xact_lock_shared"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {function}(%s, %s)", [_LOCK_CLASS, key])


def _last_checkpoint(merchant_id: str, livemode: bool, currency: str) -> tuple[int, int, int]:
    """(epoch, total, entries) of the last checkpoint; (0, 0, 0) before the first."""
    last = (
        BalanceCheckpoint.objects.filter(
            merchant_id=merchant_id, livemode=livemode, currency=currency
        )
        .order_by("-epoch")
        .values_list("epoch", "total", "entries")
        .first()
    )
    return last or (0, 0, 0)


def ledger_checkpoint(
    *, merchant_id: str, livemode: bool, currency: str, every: int = 1
) -> BalanceCheckpoint | None:
    """Add up the rows written since the last checkpoint of a merchant's mode and currency into
    a new one, when there are at least `every` of them; None otherwise. Waits for the
    transactions still writing such rows (the module's docstring)."""
    with transaction.atomic():
        _lock(merchant_id, livemode, currency, exclusive=True)
        epoch, total, entries = _last_checkpoint(merchant_id, livemode, currency)
        since = LedgerEntry.objects.filter(
            merchant_id=merchant_id, livemode=livemode, currency=currency, epoch=epoch
        ).aggregate(n=Count("id"), total=Sum(F("amount") - F("fee")))
        if since["n"] == 0 or since["n"] < every:
            return None
        return BalanceCheckpoint.objects.create(
            merchant_id=merchant_id,
            livemode=livemode,
            currency=currency,
            epoch=epoch + 1,
            total=total + since["total"],
            entries=entries + since["n"],
        )


def ledger_checkpoint_due(
    *, merchant_id: str, livemode: bool, currency: str
) -> BalanceCheckpoint | None:
    """The checkpoint a balance asked for: written when at least LEDGER_CHECKPOINT_ROWS rows
    came since the last one (a second task for the same rows finds too few and does nothing)."""
    return ledger_checkpoint(
        merchant_id=merchant_id,
        livemode=livemode,
        currency=currency,
        every=settings.LEDGER_CHECKPOINT_ROWS,
    )


def ledger_checkpoints_ask(
    *, merchant_id: str, livemode: bool, sums: dict[str, "selectors.BalanceSums"]
) -> None:
    """A checkpoint task for each currency of `sums` (selectors.balance_sums) whose balance
    added up at least LEDGER_CHECKPOINT_ROWS rows one by one. Best effort: the balance was right
    anyway, so a broker out of reach is logged and the next balance asks again."""
    for currency, of_currency in sums.items():
        if of_currency.rows < settings.LEDGER_CHECKPOINT_ROWS:
            continue
        try:
            queues.balance_checkpoint_enqueue(
                merchant_id=merchant_id, livemode=livemode, currency=currency
            )
        except Exception:
            log.exception("balance checkpoint of %s %s not enqueued", merchant_id, currency)


@dataclass(frozen=True)
class Discrepancy:
    merchant_id: str
    livemode: bool
    currency: str
    problem: str


Counted = tuple[int, int, int]  # (rows, sum of amounts, sum of fees)
NONE: Counted = (0, 0, 0)


def _expected_rows() -> dict[tuple, dict[str, Counted]]:
    """(merchant, livemode, currency) → {type: (rows, amounts, fees)} as the charges, refunds
    and payouts say the ledger must hold."""
    expected: dict[tuple, dict[str, Counted]] = {}

    def add(rows, kind: str, sign: int, fee_sign: int = 0) -> None:
        for row in rows:
            key = (row["merchant_id"], row["livemode"], row["currency"])
            n, total, fees = expected.setdefault(key, {}).get(kind, NONE)
            expected[key][kind] = (
                n + row["n"],
                total + sign * (row["total"] or 0),
                fees + fee_sign * (row.get("fees") or 0),
            )

    def grouped(qs, fees=None):
        extra = {"fees": Sum(fees)} if fees is not None else {}
        return qs.values("merchant_id", "livemode", "currency").annotate(
            n=Count("id"), total=Sum("amount"), **extra
        )

    add(
        grouped(
            Charge.objects.filter(status=ChargeStatus.SUCCEEDED), fees=pricing.charge_fee_sql()
        ),
        LedgerType.CHARGE,
        1,
        1,
    )
    late = Charge.objects.filter(late_payment_at__isnull=False).exclude(
        status=ChargeStatus.SUCCEEDED
    )
    add(grouped(late), LedgerType.LATE_PAYMENT, 1)
    # Another payment of a charge given back: its first refund carries its late_payment row.
    add(grouped(Refund.objects.filter(extra_payment__isnull=False)), LedgerType.LATE_PAYMENT, 1)
    add(grouped(Refund.objects.all()), LedgerType.REFUND, -1)
    add(grouped(Refund.objects.filter(status=RefundStatus.FAILED)), LedgerType.REFUND_FAILURE, 1)
    add(grouped(Payout.objects.all(), fees="fee"), LedgerType.PAYOUT, -1, 1)
    add(
        grouped(Payout.objects.filter(status=PayoutStatus.FAILED), fees="fee"),
        LedgerType.PAYOUT_FAILURE,
        1,
        -1,
    )
    add(grouped(Settlement.objects.all(), fees="fee"), LedgerType.SETTLEMENT, -1, 1)
    add(
        grouped(Settlement.objects.filter(status=SettlementStatus.FAILED), fees="fee"),
        LedgerType.SETTLEMENT_FAILURE,
        1,
        -1,
    )
    return expected


def ledger_check() -> list[Discrepancy]:
    """Every way the ledger disagrees with the charges, refunds and payouts it comes from, per
    merchant, mode and currency: the count, sum and fees of each type of row, every succeeded
    charge's one row with the fee its kept rate gives, the balance, and available + pending
    against the sum of the rows' net. Empty when the books are right.

    Its reads see one snapshot of the books, so that it can run while payments are taken: one
    transaction, at REPEATABLE READ on PostgreSQL (whose default gives each statement a snapshot
    of its own, and a charge settled between the read of the charges and that of the ledger
    looked like a disagreement); an SQLite transaction reads one snapshot already."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _disagreements()


def _charges_without_their_row() -> list[Discrepancy]:
    """Succeeded charges with no charge row carrying the fee their kept rate gives (the unique
    constraint allows at most one row per charge)."""
    right_row = LedgerEntry.objects.filter(
        type=LedgerType.CHARGE, charge=OuterRef("pk"), fee=OuterRef("expected_fee")
    )
    wrong = (
        Charge.objects.filter(status=ChargeStatus.SUCCEEDED)
        .annotate(expected_fee=pricing.charge_fee_sql())
        .filter(~Exists(right_row))
        .values_list("merchant_id", "livemode", "currency", "id", "expected_fee")
    )
    return [
        Discrepancy(
            merchant_id, livemode, currency, f"{charge_id}: no charge row with its fee {fee}"
        )
        for merchant_id, livemode, currency, charge_id, fee in wrong
    ]


def _disagreements() -> list[Discrepancy]:
    expected = _expected_rows()
    # One pass over the ledger: (rows, amounts, fees) per type for the sources, (rows, net) per
    # epoch for the checkpoints.
    actual: dict[tuple, dict[str, Counted]] = {}
    epochs: dict[tuple, dict[int, tuple[int, int]]] = {}
    rows = LedgerEntry.objects.values(
        "merchant_id", "livemode", "currency", "type", "epoch"
    ).annotate(n=Count("id"), total=Sum("amount"), fees=Sum("fee"))
    for row in rows:
        key = (row["merchant_id"], row["livemode"], row["currency"])
        n, total, fees = actual.setdefault(key, {}).get(row["type"], NONE)
        actual[key][row["type"]] = (
            n + row["n"],
            total + (row["total"] or 0),
            fees + (row["fees"] or 0),
        )
        n, net = epochs.setdefault(key, {}).get(row["epoch"], (0, 0))
        epochs[key][row["epoch"]] = (n + row["n"], net + (row["total"] or 0) - (row["fees"] or 0))
    problems = []
    for key in sorted(set(expected) | set(actual), key=str):
        want, have = expected.get(key, {}), actual.get(key, {})
        for kind in LedgerType.values:
            if want.get(kind, NONE) != have.get(kind, NONE):
                problems.append(
                    Discrepancy(
                        *key,
                        f"{kind}: expected {want.get(kind, NONE)} (rows, sum, fees), "
                        f"the ledger has {have.get(kind, NONE)}",
                    )
                )
        net = sum(total - fees for _, total, fees in have.values())
        if net != sum(total - fees for _, total, fees in want.values()):
            problems.append(Discrepancy(*key, f"balance {net} differs from its sources"))
        merchant_id, livemode, currency = key
        sums = selectors.balance_sums(
            merchant=merchant_id, livemode=livemode, currencies=(currency,)
        )[currency]
        if sums.available + sums.pending != net:
            problems.append(
                Discrepancy(
                    *key,
                    f"available {sums.available} + pending {sums.pending} is not "
                    f"the rows' net {net}",
                )
            )
    unlinked = LedgerEntry.objects.filter(
        Q(type__in=[LedgerType.CHARGE, LedgerType.LATE_PAYMENT], charge__isnull=True)
        | Q(type__in=[LedgerType.REFUND, LedgerType.REFUND_FAILURE], refund__isnull=True)
        | Q(type__in=[LedgerType.PAYOUT, LedgerType.PAYOUT_FAILURE], payout__isnull=True)
        | (
            Q(type__in=[LedgerType.SETTLEMENT, LedgerType.SETTLEMENT_FAILURE])
            & ~Q(source__in=Settlement.objects.values("id"))
        )
    ).values_list("merchant_id", "livemode", "currency", "id")
    for merchant_id, livemode, currency, entry_id in unlinked:
        problems.append(Discrepancy(merchant_id, livemode, currency, f"{entry_id} has no source"))
    return problems + _charges_without_their_row() + _checkpoint_problems(epochs)


def _checkpoint_problems(epochs: dict[tuple, dict[int, tuple[int, int]]]) -> list[Discrepancy]:
    """Each balance checkpoint must hold exactly the count and sum of its rows (those of the
    epochs before it), and no row may be of an epoch after the last checkpoint. `epochs`: the
    (count, sum) of each epoch's rows, per merchant, mode and currency."""
    checkpoints: dict[tuple, list] = {}
    for checkpoint in BalanceCheckpoint.objects.order_by("epoch"):
        key = (checkpoint.merchant_id, checkpoint.livemode, checkpoint.currency)
        checkpoints.setdefault(key, []).append(checkpoint)
    problems = []
    for key in sorted(set(epochs) | set(checkpoints), key=str):
        of_key, last = epochs.get(key, {}), 0
        for checkpoint in checkpoints.get(key, []):
            before = [value for epoch, value in of_key.items() if epoch < checkpoint.epoch]
            counted = (sum(n for n, _ in before), sum(total for _, total in before))
            if (checkpoint.entries, checkpoint.total) != counted or checkpoint.epoch != last + 1:
                problems.append(
                    Discrepancy(
                        *key,
                        f"balance checkpoint {checkpoint.epoch} holds "
                        f"({checkpoint.entries}, {checkpoint.total}) (rows, sum), "
                        f"its rows add up to {counted}",
                    )
                )
            last = checkpoint.epoch
        stray = sorted(epoch for epoch in of_key if epoch > last)
        if stray:
            problems.append(
                Discrepancy(*key, f"rows of epoch {stray[0]}, after the last checkpoint")
            )
    return problems
