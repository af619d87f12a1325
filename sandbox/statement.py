"""The test operator's statement of one UTC day, in the generic format of contract §21: what the
sandbox operator (and the sandbox card provider) did that day, from its own records, for drills
and for the reconciliation guide.

- Collections: its mobile money transactions of the network (the outcome its phone-number rules
  gave; a customer who never answers is not on it) or its card attempts with a decision.
- Reversals: the refunds it took and settled (pending ones are not on it yet).
- Disbursements: payouts sent to it (the outcome its phone-number rules give; it keeps no record
  of its own) and wallet settlements paid or failed on its rail.
The operator charges SANDBOX_OPERATOR_FEE_BP of each successful line (its `fee` column)."""

from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta

from django.conf import settings

from payments.models import Payout, Settlement, SettlementStatus
from payments.operator_statement import write_generic
from sandbox.models import SandboxTransaction
from sandbox.providers import (
    LATE_SUFFIX,
    MOBILE_MONEY_SUFFIXES,
    PAYOUT_SUFFIXES,
    SUCCESS,
)

CARD = "CARD"
SANDBOX_OPERATOR_FEE_BP = 100  # 1 % of each successful line


def _fee(amount: int, status: str) -> int:
    return (amount * SANDBOX_OPERATOR_FEE_BP + 5000) // 10000 if status == "succeeded" else 0


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _line(*, reference, ours, type, amount, currency, status, at) -> dict:
    return {
        "operator_reference": reference,
        "merchant_reference": ours,
        "type": type,
        "amount": amount,
        "currency": currency,
        "status": status,
        "completed_at": _iso(at),
        "fee": _fee(amount, status),
    }


def _collections(network: str, start: datetime, end: datetime) -> Iterator[tuple]:
    if network == CARD:
        records = SandboxTransaction.objects.filter(kind=SandboxTransaction.Kind.CARD).exclude(
            decision=""
        )
    else:
        records = SandboxTransaction.objects.filter(
            kind=SandboxTransaction.Kind.MOBILE_MONEY, network=network
        )
    delay = timedelta(seconds=settings.SANDBOX_MOBILE_MONEY_DELAY)
    for record in records.filter(created_at__gte=start - delay, created_at__lt=end):
        if network == CARD:
            paid = record.decision == "ACCEPT" and record.reason_code != "110"
            status, at = (
                ("succeeded" if paid else "failed"),
                record.answered_at or record.created_at,
            )
        else:
            if record.phone.endswith(LATE_SUFFIX):
                answer = SUCCESS
                at = record.created_at + timedelta(seconds=settings.MOBILE_MONEY_PROMPT_TIMEOUT)
            else:
                answer = MOBILE_MONEY_SUFFIXES.get(record.phone[-3:], SUCCESS)
                at = record.created_at + delay
            if answer is None:  # the customer never answered: nothing moved
                continue
            status = "succeeded" if answer[0] == "succeeded" else "failed"
        yield (
            at,
            _line(
                reference=record.id,
                ours=record.reference,
                type="collection",
                amount=record.amount,
                currency=record.currency,
                status=status,
                at=at,
            ),
        )


def _reversals(network: str, start: datetime, end: datetime) -> Iterator[tuple]:
    records = SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.REFUND,
        decision__in=("succeeded", "failed"),
        network="" if network == CARD else network,
        created_at__gte=start - timedelta(days=1),
        created_at__lt=end,
    )
    for record in records:
        at = record.answered_at or record.created_at
        yield (
            at,
            _line(
                reference=record.id,
                ours=record.attempt,
                type="reversal",
                amount=record.amount,
                currency=record.currency,
                status=record.decision,
                at=at,
            ),
        )


def _disbursements(network: str, start: datetime, end: datetime) -> Iterator[tuple]:
    if network == CARD:
        return
    delay = timedelta(seconds=settings.SANDBOX_MOBILE_MONEY_DELAY)
    payouts = Payout.objects.filter(
        livemode=False,
        network=network,
        provider_requested_at__gte=start - delay,
        provider_requested_at__lt=end,
    )
    for payout in payouts:
        answer = PAYOUT_SUFFIXES.get(payout.phone[-3:], SUCCESS)
        yield (
            payout.provider_requested_at + delay,
            _line(
                reference=f"sbx_{payout.id.split('_', 1)[-1]}",
                ours=payout.id,
                type="disbursement",
                amount=payout.amount,
                currency=payout.currency,
                status="succeeded" if answer[0] == "succeeded" else "failed",
                at=payout.provider_requested_at + delay,
            ),
        )
    settlements = Settlement.objects.filter(
        livemode=False,
        account__type="mobile_money",
        account__network=network,
        status__in=(SettlementStatus.PAID, SettlementStatus.FAILED),
        finalized_at__gte=start,
        finalized_at__lt=end,
    )
    for settlement in settlements:
        yield (
            settlement.finalized_at,
            _line(
                reference=settlement.provider_reference or f"sbx_{settlement.id.split('_', 1)[-1]}",
                ours=settlement.id,
                type="disbursement",
                amount=settlement.amount,
                currency=settlement.currency,
                status="succeeded" if settlement.status == SettlementStatus.PAID else "failed",
                at=settlement.finalized_at,
            ),
        )


def statement_of_day(*, network: str, day: date) -> list[dict]:
    """The lines completed on `day` (UTC), in the order they were completed."""
    start = datetime.combine(day, time.min, tzinfo=UTC)
    end = start + timedelta(days=1)
    found = [
        *_collections(network, start, end),
        *_reversals(network, start, end),
        *_disbursements(network, start, end),
    ]
    return [line for at, line in sorted(found, key=lambda f: f[0]) if start <= at < end]


def write_statement(out, *, network: str, day: date) -> int:
    lines = statement_of_day(network=network, day=day)
    write_generic(out, lines)
    return len(lines)
