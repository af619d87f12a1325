"""Reconciliation (contract §21): an operator's statement against our books.

Each line is matched to our charge, refund, payout or settlement (by the operator's reference,
else by the reference we sent) and gets one result; each of our objects of the statement's
network, mode and period that no line names is `missing` once RECONCILE_GRACE has passed. An
operator success we hold as failed or pending, or a second payment of a succeeded charge, is
money received: it goes through the late payment path (charges.charge_payment_confirmed, the very
path the status checks take, so that whichever finds it first gives it back once) in the same
step. Nothing else changes our objects: every other difference is left open for staff, who
resolve it with a note."""

import hashlib
import logging
import os
import re
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from pathlib import Path

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Q, QuerySet, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from core.money import format_amount
from payments import pricing, selectors
from payments.models import (
    CLOSED_OUTCOMES,
    Charge,
    ChargeStatus,
    ExtraPayment,
    ExtraPaymentStatus,
    LineStatus,
    LineType,
    PaymentMethod,
    Payout,
    PayoutStatus,
    ReconciliationOutcome,
    ReconciliationResult,
    Refund,
    RefundStatus,
    Settlement,
    SettlementAccountType,
    SettlementStatus,
    Statement,
    StatementLine,
    StatementNetwork,
)
from payments.operator_statement import (
    Line,
    StatementInvalid,
    file_hash,
    our_id,
    parse,
)
from payments.services import charges

logger = logging.getLogger(__name__)

Outcome = ReconciliationOutcome
CARD = StatementNetwork.CARD


@dataclass
class Loaded:
    statement: Statement
    new: bool  # False: the same file was loaded before, and nothing changed


# --- Our objects of a network and mode ---------------------------------------------------------


def _charges(network: str, livemode: bool) -> QuerySet:
    scope = (
        Q(payment_method=PaymentMethod.CARD)
        if network == CARD
        else Q(payment_method=PaymentMethod.MOBILE_MONEY, network=network)
    )
    return Charge.objects.filter(scope, livemode=livemode)


def _refunds(network: str, livemode: bool) -> QuerySet:
    scope = (
        Q(charge__payment_method=PaymentMethod.CARD)
        if network == CARD
        else Q(charge__payment_method=PaymentMethod.MOBILE_MONEY, charge__network=network)
    )
    return Refund.objects.filter(scope, livemode=livemode)


def _payouts(network: str, livemode: bool) -> QuerySet:
    return Payout.objects.filter(network=network, livemode=livemode)


def _settlements(network: str, livemode: bool) -> QuerySet:
    return Settlement.objects.filter(
        account__type=SettlementAccountType.MOBILE_MONEY,
        account__network=network,
        livemode=livemode,
    )


def _querysets(line_type: str, network: str, livemode: bool) -> list[QuerySet]:
    if line_type == LineType.COLLECTION:
        return [_charges(network, livemode)]
    if line_type == LineType.REVERSAL:
        return [_refunds(network, livemode)]
    return [_payouts(network, livemode), _settlements(network, livemode)]


def _find(line: Line, network: str, livemode: bool):
    """Our object the line names: by the operator's reference, else by ours; None if none."""
    querysets = _querysets(line.type, network, livemode)
    if line.operator_reference:
        for queryset in querysets:
            found = queryset.filter(provider_reference=line.operator_reference).first()
            if found is not None:
                return found
    pk = our_id(line.merchant_reference)
    if pk:
        for queryset in querysets:
            found = queryset.filter(pk=pk).first()
            if found is not None:
                return found
    return None


# --- Results -----------------------------------------------------------------------------------


def _succeeded(obj) -> bool:
    if isinstance(obj, Settlement):
        return obj.status == SettlementStatus.PAID
    return obj.status == ChargeStatus.SUCCEEDED  # the same word for refunds and payouts


def _failed(obj) -> bool:
    failed = {
        Charge: (ChargeStatus.FAILED, ChargeStatus.DECLINED),
        Refund: (RefundStatus.FAILED,),
        Payout: (PayoutStatus.FAILED,),
        Settlement: (SettlementStatus.FAILED,),
    }
    return obj.status in failed[type(obj)]


def _available(merchant_id: str, livemode: bool, currency: str) -> int | None:
    sums = selectors.balance_sums(merchant=merchant_id, livemode=livemode, currencies=(currency,))
    return sums[currency].available if currency in sums else None


def _flagged(result: ReconciliationResult) -> ReconciliationResult:
    """Money we may have credited and never got (or sent and not been told of): for staff, with
    the merchant's available balance beside it."""
    result.needs_staff = True
    if result.merchant_id and result.currency:
        result.available_balance = _available(result.merchant_id, result.livemode, result.currency)
    return result


def _late_payment(charge: Charge, line: Line) -> None:
    """The operator's success on a charge we hold failed or pending, or a second payment of a
    succeeded one: handed to the late payment path, under the charge's lock."""
    charges.charge_payment_confirmed(
        charge_id=charge.id,
        reference=line.operator_reference,
        answer={
            "statement_line": line.number,
            "status": line.status,
            "operator_reference": line.operator_reference,
            "completed_at": line.completed_at.isoformat(),
        },
    )


def _second_payment(charge: Charge, line: Line) -> bool:
    return bool(
        line.operator_reference
        and charge.provider_reference
        and line.operator_reference != charge.provider_reference
    )


def _judge_charge(charge: Charge, line: Line, result: ReconciliationResult) -> None:
    if line.status == LineStatus.SUCCEEDED:
        if charge.status != ChargeStatus.SUCCEEDED or _second_payment(charge, line):
            _late_payment(charge, line)
            result.outcome = Outcome.LATE_PAYMENT
            result.detail = _("The operator took this payment: handled as a late payment.")
            return
        result.outcome = Outcome.MATCHED
        return
    # The operator's failure.
    if charge.status == ChargeStatus.SUCCEEDED and not _second_payment(charge, line):
        result.outcome = Outcome.STATUS_MISMATCH
        result.detail = _("We hold it succeeded; the operator reports it failed.")
        _flagged(result)
    elif charge.status == ChargeStatus.PENDING:
        result.outcome = Outcome.STATUS_MISMATCH
        result.detail = _("We hold it pending; the operator reports it failed.")
    else:
        # Ours failed too, or an attempt of a succeeded charge that failed.
        result.outcome = Outcome.MATCHED


def _judge_outgoing(obj, line: Line, result: ReconciliationResult) -> None:
    """A refund, payout or settlement: money that left."""
    if line.status == LineStatus.SUCCEEDED and _succeeded(obj):
        result.outcome = Outcome.MATCHED
    elif line.status == LineStatus.FAILED and _failed(obj):
        result.outcome = Outcome.MATCHED
    else:
        result.outcome = Outcome.STATUS_MISMATCH
        result.detail = _("We hold it %(ours)s; the operator reports it %(theirs)s.") % {
            "ours": obj.get_status_display().lower(),
            "theirs": LineStatus(line.status).label.lower(),
        }
        _flagged(result)


def _judge(line: Line, network: str, livemode: bool, result: ReconciliationResult) -> None:
    obj = _find(line, network, livemode)
    if obj is None:
        result.outcome = Outcome.UNKNOWN
        result.detail = _("No charge, refund, payout or settlement of ours has this reference.")
        return
    result.object_id = obj.pk
    result.merchant_id = obj.merchant_id
    result.currency = obj.currency
    result.amount = obj.amount
    result.our_status = obj.status
    if line.currency != obj.currency:
        result.outcome = Outcome.CURRENCY_MISMATCH
        result.detail = _("The operator reports %(theirs)s; we hold %(ours)s.") % {
            "theirs": line.currency,
            "ours": obj.currency,
        }
        return
    if line.amount != obj.amount:
        result.outcome = Outcome.AMOUNT_MISMATCH
        result.detail = _("The operator reports %(theirs)s; we hold %(ours)s.") % {
            "theirs": format_amount(line.amount, line.currency),
            "ours": format_amount(obj.amount, obj.currency),
        }
        return
    if isinstance(obj, Charge):
        _judge_charge(obj, line, result)
    else:
        _judge_outgoing(obj, line, result)


def _period(lines: list[Line]) -> tuple:
    return (
        min(line.completed_at for line in lines).date(),
        max(line.completed_at for line in lines).date(),
    )


def _missing(statement: Statement) -> list[ReconciliationResult]:
    """Our objects of the statement's network, mode and period (whole UTC days) that no line of
    any statement of that network and mode names, created more than RECONCILE_GRACE before the
    statement was loaded; each found missing once. A failed object that never reached the
    operator is not looked for."""
    start = datetime.combine(statement.period_from, time.min, tzinfo=UTC)
    end = datetime.combine(statement.period_to + timedelta(days=1), time.min, tzinfo=UTC)
    end = min(end, statement.loaded_at - timedelta(seconds=settings.RECONCILE_GRACE))
    if end <= start:
        return []
    named = ReconciliationResult.objects.filter(
        statement__network=statement.network,
        statement__livemode=statement.livemode,
    ).exclude(object_id="")
    network, livemode = statement.network, statement.livemode
    querysets = [_charges(network, livemode), _refunds(network, livemode)]
    if network != CARD:
        querysets += [_payouts(network, livemode), _settlements(network, livemode)]
    found = []
    for queryset in querysets:
        unnamed = (
            queryset.filter(created_at__gte=start, created_at__lt=end)
            .exclude(pk__in=named.values("object_id"))
            .exclude(
                Q(provider_requested_at__isnull=True)
                & Q(status__in=(ChargeStatus.FAILED, ChargeStatus.DECLINED))
            )
            .order_by("created_at", "pk")
        )
        for obj in unnamed:
            result = ReconciliationResult(
                statement=statement,
                outcome=Outcome.MISSING,
                object_id=obj.pk,
                merchant_id=obj.merchant_id,
                livemode=livemode,
                currency=obj.currency,
                amount=obj.amount,
                our_status=obj.status,
                detail=_("No line of the operator's statement names it."),
            )
            found.append(_flagged(result))
    return found


# --- Loading a statement -----------------------------------------------------------------------


def _counted_before(statement: Statement, lines: list[Line]) -> set[str]:
    references = {line.operator_reference for line in lines if line.operator_reference}
    return set(
        StatementLine.objects.filter(
            statement__network=statement.network,
            statement__livemode=statement.livemode,
            operator_reference__in=references,
        )
        .exclude(statement=statement)
        .values_list("operator_reference", flat=True)
    )


def statement_load(
    *, network: str, livemode: bool, content: bytes, file_name: str = "", loaded_by: str = ""
) -> Loaded:
    """Read a statement (operator_statement.StatementInvalid when it cannot be: nothing is
    recorded) and reconcile it, in one transaction. The same file of the same network and mode
    again changes nothing: its first statement is returned."""
    if network not in StatementNetwork.values:
        raise ValueError(f"unknown network {network!r}")
    file_format, lines = parse(content, network=network)
    digest = file_hash(content)
    earlier = Statement.objects.filter(network=network, livemode=livemode, file_hash=digest).first()
    if earlier is not None:
        return Loaded(earlier, new=False)
    try:
        statement = _reconcile(network, livemode, lines, digest, file_name, loaded_by, file_format)
    except IntegrityError:
        # The same file loaded at the same moment by someone else: theirs stands.
        earlier = Statement.objects.filter(
            network=network, livemode=livemode, file_hash=digest
        ).first()
        if earlier is None:
            raise
        return Loaded(earlier, new=False)
    return Loaded(statement, new=True)


def _one_statement_at_a_time(network: str, livemode: bool) -> None:
    """Wait for any other statement of the network and mode being loaded to commit (until the
    end of this transaction), so that two overlapping statements loaded at once still count each
    line once and find each missing object once. SQLite runs one writing transaction at a time
    (transaction_mode IMMEDIATE), which is stronger."""
    if connection.vendor != "postgresql":
        return
    digest = hashlib.blake2b(f"statement\0{network}\0{int(livemode)}".encode(), digest_size=8)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(%s)",
            [int.from_bytes(digest.digest(), "big", signed=True)],
        )


@transaction.atomic
def _reconcile(network, livemode, lines, digest, file_name, loaded_by, file_format) -> Statement:
    _one_statement_at_a_time(network, livemode)
    period_from, period_to = _period(lines)
    statement = Statement.objects.create(
        network=network,
        livemode=livemode,
        file_hash=digest,
        file_name=file_name[:255],
        file_format=file_format,
        period_from=period_from,
        period_to=period_to,
        line_count=len(lines),
        loaded_by=loaded_by,
    )
    before = _counted_before(statement, lines)
    seen: set[str] = set()
    for line in lines:
        reference = line.operator_reference
        counted = bool(reference) and (reference in before or reference in seen)
        seen.add(reference)
        row = StatementLine.objects.create(
            statement=statement,
            number=line.number,
            operator_reference=reference,
            merchant_reference=line.merchant_reference,
            type=line.type,
            amount=line.amount,
            currency=line.currency,
            status=line.status,
            completed_at=line.completed_at,
            fee=line.fee,
            counted_before=counted,
        )
        if counted:
            continue
        result = ReconciliationResult(statement=statement, line=row, livemode=livemode)
        _judge(line, network, livemode, result)
        result.save()
    ReconciliationResult.objects.bulk_create(_missing(statement))
    statement.summary = statement_summary(statement)
    statement.save(update_fields=["summary"])
    return statement


# --- What a statement came to ------------------------------------------------------------------


def open_results(statement: Statement) -> QuerySet:
    return statement.results.exclude(outcome__in=CLOSED_OUTCOMES).filter(resolved_at__isnull=True)


def _merchant_fee(result: ReconciliationResult) -> int:
    """The fee our merchant paid on the object a matched line names (§19)."""
    pk = result.object_id
    if pk.startswith("ch_"):
        charge = Charge.objects.get(pk=pk)
        return pricing.charge_fee(charge) if charge.status == ChargeStatus.SUCCEEDED else 0
    if pk.startswith("po_"):
        return Payout.objects.only("fee").get(pk=pk).fee
    if pk.startswith("stl_"):
        return Settlement.objects.only("fee").get(pk=pk).fee
    return 0


def fees_compared(statement: Statement) -> list[dict]:
    """Per currency: what the operator charged us on this statement's lines (its `fee` column),
    and what our merchants paid on the same lines (the objects those lines name)."""
    operator = {
        row["currency"]: row["total"]
        for row in statement.lines.values("currency").annotate(total=Sum("fee"))
    }
    merchants: dict[str, int] = {}
    for result in statement.results.exclude(object_id="").exclude(line=None):
        merchants[result.currency] = merchants.get(result.currency, 0) + _merchant_fee(result)
    return [
        {
            "currency": currency,
            "operator_fees": operator.get(currency, 0),
            "merchant_fees": merchants.get(currency, 0),
        }
        for currency in sorted(set(operator) | set(merchants))
    ]


def _total(queryset: QuerySet, currency: str) -> int:
    return queryset.filter(currency=currency).aggregate(total=Sum("amount"))["total"] or 0


def expected_float(*, network: str, livemode: bool, currency: str) -> int:
    """What the operator account should hold by our books: the money collected (successes, and
    late and second payments received, which their refunds give back), less what was sent
    (refunds, payouts and wallet settlements that succeeded), less the operator's fees on every
    statement loaded for it."""
    received = _charges(network, livemode).filter(
        Q(status=ChargeStatus.SUCCEEDED) | Q(late_payment_at__isnull=False)
    )
    seconds = ExtraPayment.objects.filter(
        charge__in=_charges(network, livemode), status=ExtraPaymentStatus.CONFIRMED
    )
    collected = _total(received, currency) + (
        seconds.filter(charge__currency=currency).aggregate(total=Sum("charge__amount"))["total"]
        or 0
    )
    sent = _total(_refunds(network, livemode).filter(status=RefundStatus.SUCCEEDED), currency)
    if network != CARD:
        sent += _total(_payouts(network, livemode).filter(status=PayoutStatus.SUCCEEDED), currency)
        sent += _total(
            _settlements(network, livemode).filter(status=SettlementStatus.PAID), currency
        )
    fees = (
        StatementLine.objects.filter(
            statement__network=network, statement__livemode=livemode, currency=currency
        ).aggregate(total=Sum("fee"))["total"]
        or 0
    )
    return collected - sent - fees


def statement_summary(statement: Statement) -> dict:
    """The JSON summary of contract §21."""
    counts = {outcome: 0 for outcome in Outcome.values}
    for row in statement.results.values("outcome").annotate(n=Count("id")):
        counts[row["outcome"]] = row["n"]
    fees = {
        row["currency"]: row["total"]
        for row in statement.lines.values("currency").annotate(total=Sum("fee"))
    }
    currencies = sorted(set(fees) | set(statement.closing_balance))
    return {
        "statement": statement.id,
        "network": statement.network,
        "mode": statement.mode,
        "period": {
            "from": statement.period_from.isoformat() if statement.period_from else None,
            "to": statement.period_to.isoformat() if statement.period_to else None,
        },
        "lines": statement.line_count,
        "results": counts,
        "late_payments": counts[Outcome.LATE_PAYMENT],
        "operator_fees": [{"currency": c, "amount": fees[c]} for c in sorted(fees)],
        "float": [
            {
                "currency": currency,
                "expected": expected_float(
                    network=statement.network, livemode=statement.livemode, currency=currency
                ),
                "reported": statement.closing_balance.get(currency),
            }
            for currency in currencies
        ],
    }


# --- Staff -------------------------------------------------------------------------------------


class AlreadyResolved(Exception):
    pass


@transaction.atomic
def result_resolve(*, result_id: int, note: str, staff: str) -> ReconciliationResult:
    """Staff close an open difference with a note (who, when, why). Nothing else changes: what
    the money needs (a refund, a correction) is done through its own path."""
    if not note.strip():
        raise ValueError("a resolution needs a note")
    result = ReconciliationResult.objects.select_for_update().get(pk=result_id)
    if not result.is_open:
        raise AlreadyResolved(result_id)
    result.resolved_at = timezone.now()
    result.resolved_by = staff
    result.resolution_note = note.strip()
    result.save(update_fields=["resolved_at", "resolved_by", "resolution_note"])
    logger.info("reconciliation result %s (%s) resolved by %s", result.pk, result.outcome, staff)
    return result


# --- The folder the periodic job reads ---------------------------------------------------------

FOLDER_NAME = re.compile(
    r"^(?P<network>AIRTEL_MONEY|VODACOM_MPESA|ORANGE_MONEY|CARD)[-_](?P<mode>live|test)\b.*\.csv$",
    re.IGNORECASE,
)
DONE, REFUSED = "done", "refused"


def _move(path: Path, into: str) -> Path | None:
    target_dir = path.parent / into
    target_dir.mkdir(exist_ok=True)
    target = target_dir / path.name
    try:
        os.replace(path, target)
    except FileNotFoundError:  # another run took it first
        return None
    return target


def statements_from_folder() -> int:
    """Reconcile every statement dropped in RECONCILE_FOLDER, each file once: named
    NETWORK-MODE-anything.csv (VODACOM_MPESA-live-2026-12-07.csv), it is loaded and moved to
    done/; a file that cannot be read, or whose name says neither network nor mode, is moved to
    refused/ with its problems beside it (NAME.problems.txt). Returns how many were loaded."""
    folder = settings.RECONCILE_FOLDER
    if not folder:
        return 0
    loaded = 0
    for path in sorted(Path(folder).glob("*")):
        if not path.is_file():
            continue
        named = FOLDER_NAME.match(path.name)
        if named is None:
            problems = [
                "The file's name must begin with the network and the mode, as in "
                "VODACOM_MPESA-live-2026-12-07.csv, and end in .csv."
            ]
        else:
            try:
                result = statement_load(
                    network=named["network"].upper(),
                    livemode=named["mode"].lower() == "live",
                    content=path.read_bytes(),
                    file_name=path.name,
                    loaded_by="reconciliation folder",
                )
            except StatementInvalid as exc:
                problems = exc.problems
            else:
                _move(path, DONE)
                loaded += int(result.new)
                continue
        moved = _move(path, REFUSED)
        if moved is not None:
            moved.with_name(moved.name + ".problems.txt").write_text(
                "\n".join(problems) + "\n", encoding="utf-8"
            )
            logger.warning("statement %s refused: %s", path.name, "; ".join(problems))
    return loaded
