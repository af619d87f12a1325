"""Settlement accounts and settlements: a merchant's available balance moved to its own bank
account or mobile money wallet (docs/guides/getting-paid.md).

A settlement reserves its amount and fee from the available balance under the balance lock, in
the transaction that writes it (a `settlement` ledger row); a failed one gives both back
(`settlement_failure`). Its status changes in services.movements like every movement's:
pending → in_transit (handed on) → paid | failed. Where it goes:
- test mode: the sandbox's rail, in transit at once and settled SANDBOX_SETTLEMENT_DELAY seconds
  later (a bank account number ending 0001 fails with account_invalid, a wallet ending 001 with
  recipient_invalid, as a payout to it would);
- a live mobile money account: the payout rail of its network, called at most once (the call
  claimed as a payout's is), no payout object and no payout fee of its own;
- a live bank account: staff, through a bank transfer file (settlement_bank_export) and then the
  bank's answer (settlement_bank_settle), by another staff user than the one who exported it.

A new live settlement account is held for SETTLEMENT_ACCOUNT_HOLD seconds, and every owner and
admin of the merchant is told at once (core.events.settlement_account_changed): the defence
against a stolen password or key that adds an account of its own.
"""

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import events, ids
from core.errors import (
    Amount,
    ApiError,
    BalanceInsufficient,
    InvalidRequest,
    LiveModeNotApproved,
    ProviderUnavailable,
    ResourceMissing,
)
from payments import pricing, selectors, state
from payments.models import (
    LedgerEntry,
    LedgerType,
    Merchant,
    PaymentMethod,
    PricingKind,
    SettledEntry,
    Settlement,
    SettlementAccount,
    SettlementAccountType,
    SettlementInterval,
    SettlementMethod,
    SettlementSchedule,
    SettlementStatus,
)
from payments.providers import registry
from payments.providers.base import (
    PayoutNotSent,
    PayoutQuery,
    PayoutRequest,
    ProviderError,
    ProviderOutcome,
)
from payments.representations import settlement_repr
from payments.services import movements, queues
from payments.services.ledger import balance_lock_available, ledger_record
from payments.services.provider_calls import call_claim, provider_ask

logger = logging.getLogger("payments.services")

SEND_GRACE = 30  # a live mobile money settlement not handed on after this is sent by the sweep
BACKOFF = (30, 60, 120, 300, 600, 1800, 3600)
# When the money is expected once handed on: a wallet within the hour, a bank transfer within
# two working days (the Congolese banks' usual delay for a local transfer).
ARRIVAL = {
    SettlementAccountType.MOBILE_MONEY: timedelta(hours=1),
    SettlementAccountType.BANK_ACCOUNT: timedelta(days=2),
}
ACCOUNT_NUMBER = re.compile(r"^[A-Z0-9]{8,34}$")
SWIFT = re.compile(r"^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$")
WHOLE_UNITS = 100  # operators pay whole francs and dollars


# --- Accounts ------------------------------------------------------------------------------------


def _accounts(merchant_id: str, livemode: bool):
    return SettlementAccount.objects.filter(
        merchant_id=merchant_id, livemode=livemode, removed_at__isnull=True
    )


@transaction.atomic
def account_add(
    *,
    merchant: Merchant,
    livemode: bool,
    type: str,
    currency: str,
    bank_name: str = "",
    account_holder: str = "",
    account_number: str = "",
    swift: str = "",
    phone: str = "",
    network: str = "",
    added_by: str = "",
) -> SettlementAccount:
    """Add a settlement account (fields checked by the caller's serializer, the number's shape
    here): the currency's default if it has none; a live one held from now, its owners and
    admins told once this commits."""
    now = timezone.now()
    if type == SettlementAccountType.BANK_ACCOUNT:
        account_number = re.sub(r"\s+", "", account_number).upper()
        if not ACCOUNT_NUMBER.match(account_number):
            raise InvalidRequest(
                gettext_noop("An account number is 8 to 34 letters and digits."),
                param="account_number",
            )
        swift = re.sub(r"\s+", "", swift).upper()
        if not SWIFT.match(swift):
            raise InvalidRequest(
                gettext_noop("A SWIFT/BIC code is 8 or 11 letters and digits."), param="swift"
            )
        phone, network = "", ""
    else:
        bank_name, account_number, swift = "", "", ""
        account_holder = merchant.name
    # The merchant's row locked: two accounts added at once do not both become the default.
    Merchant.objects.select_for_update(no_key=True).filter(pk=merchant.pk).get()
    has_default = _accounts(merchant.pk, livemode).filter(currency=currency, is_default=True)
    hold = timedelta(seconds=settings.SETTLEMENT_ACCOUNT_HOLD if livemode else 0)
    account = SettlementAccount.objects.create(
        merchant=merchant,
        livemode=livemode,
        type=type,
        currency=currency,
        bank_name=bank_name,
        account_holder=account_holder,
        account_number=account_number,
        swift=swift,
        phone=phone,
        network=network,
        is_default=not has_default.exists(),
        available_from=now + hold,
        created_at=now,
    )
    events.settlement_account_changed.send(
        sender=SettlementAccount, instance=account, action="added", by=added_by
    )
    return account


def account_get(*, merchant: Merchant, livemode: bool, account_id: str) -> SettlementAccount:
    account = _accounts(merchant.pk, livemode).filter(pk=account_id).first()
    if account is None:
        raise ResourceMissing("settlement_account", account_id)
    return account


@transaction.atomic
def account_remove(*, account: SettlementAccount, removed_by: str = "") -> SettlementAccount:
    """Remove an account (its settlements keep it); when it was the default, the oldest
    remaining account of that currency becomes it."""
    Merchant.objects.select_for_update(no_key=True).filter(pk=account.merchant_id).get()
    account = SettlementAccount.objects.select_for_update().get(pk=account.pk)
    if account.removed_at is not None:
        return account
    was_default = account.is_default
    account.removed_at = timezone.now()
    account.is_default = False
    account.save(update_fields=["removed_at", "is_default"])
    if was_default:
        oldest = (
            _accounts(account.merchant_id, account.livemode)
            .filter(currency=account.currency)
            .order_by("created_at", "id")
            .first()
        )
        if oldest is not None:
            oldest.is_default = True
            oldest.save(update_fields=["is_default"])
    events.settlement_account_changed.send(
        sender=SettlementAccount, instance=account, action="removed", by=removed_by
    )
    return account


# --- Settlements ---------------------------------------------------------------------------------


def settlement_fee(*, merchant: Merchant | str, account: SettlementAccount, amount: int) -> int:
    """A mobile money settlement takes the settlement rates of mobile money and its network, a
    bank one the settlement rate of neither."""
    mobile = account.type == SettlementAccountType.MOBILE_MONEY
    rate = pricing.rate_for(
        merchant,
        kind=PricingKind.SETTLEMENT,
        payment_method=PaymentMethod.MOBILE_MONEY if mobile else "",
        network=account.network if mobile else "",
        currency=account.currency,
    )
    return rate.fee(amount)


def largest_amount(available: int, *, fee_of, step: int = 1) -> int:
    """The largest multiple of `step` whose amount plus its fee `available` covers (0: none).
    amount + fee grows with the amount, so a binary search finds it."""
    low, high = 0, max(available, 0) // step
    while low < high:
        middle = (low + high + 1) // 2
        if middle * step + fee_of(middle * step) <= available:
            low = middle
        else:
            high = middle - 1
    return low * step


def _account_for(merchant: Merchant, livemode: bool, currency: str, account_id: str | None):
    accounts = _accounts(merchant.pk, livemode).filter(currency=currency)
    account = (
        accounts.filter(pk=account_id).first()
        if account_id
        else accounts.filter(is_default=True).first()
    )
    if account is None:
        if account_id:  # a reference in the body, not the path: 400, as for any parameter
            raise InvalidRequest(
                gettext_noop("No such settlement account: '%(id)s'."),
                code="resource_missing",
                param="settlement_account",
                params={"id": account_id},
            )
        raise InvalidRequest(
            gettext_noop("There is no %(currency)s settlement account: add one first."),
            code="settlement_account_missing",
            param="settlement_account",
            params={"currency": currency},
        )
    return account


def _reference(settlement_id: str) -> str:
    """What the merchant's bank or wallet statement shows: short, and ours."""
    return "CONGOPAY " + settlement_id.removeprefix("stl_")[:12].upper()


@transaction.atomic
def settlement_create(
    *,
    merchant: Merchant,
    livemode: bool,
    currency: str,
    amount: int | None = None,
    account_id: str | None = None,
    method: str = SettlementMethod.MANUAL,
    period: str = "",
    minimum: int = 0,
) -> Settlement:
    """A settlement of `amount` (by default the most the available balance covers with its fee,
    in whole units for a wallet) to the account (by default the currency's). The checks come in
    this order: live approval, the account (missing, then on hold), then the balance. An
    automatic one (a schedule's, `period` set) is refused below the schedule's `minimum`."""
    # The balance read under its lock, after the account's checks (lock order:
    # services.ledger.balance_lock_check).
    quote = _quoted(
        merchant=merchant,
        livemode=livemode,
        currency=currency,
        amount=amount,
        account_id=account_id,
        minimum=minimum,
        read_available=lambda: balance_lock_available(
            merchant_id=merchant.pk, livemode=livemode, currency=currency
        ),
    )
    account, amount, fee = quote.account, quote.amount, quote.fee
    mobile = account.type == SettlementAccountType.MOBILE_MONEY
    now = timezone.now()
    settlement_id = ids.settlement_id()
    settlement = Settlement(
        id=settlement_id,
        merchant=merchant,
        livemode=livemode,
        amount=amount,
        fee=fee,
        currency=currency,
        account=account,
        method=method,
        period=period,
        reference=_reference(settlement_id),
        created_at=now,
        updated_at=now,
    )
    if not livemode:
        # The sandbox's rail takes it at once (the 201 says in_transit) and settles it later.
        settlement.status = SettlementStatus.IN_TRANSIT
        settlement.provider = "sandbox"
        settlement.provider_requested_at = now
        settlement.next_check_at = now + timedelta(seconds=settings.SANDBOX_SETTLEMENT_DELAY)
        settlement.arrival_estimate = settlement.next_check_at
    elif mobile:
        settlement.provider = registry.payouts(livemode=True, network=account.network).name
        settlement.next_check_at = now + timedelta(seconds=SEND_GRACE)
        transaction.on_commit(
            lambda: queues.settlement_send_enqueue(settlement_id=settlement_id), robust=True
        )
    settlement.save(force_insert=True)
    ledger_record(type=LedgerType.SETTLEMENT, source=settlement)
    return settlement


@dataclass(frozen=True)
class Quote:
    """What a settlement would be if made now: its account, amount and fee, and the available
    balance they were read against."""

    account: SettlementAccount
    amount: int
    fee: int
    available: int


def settlement_quote(
    *,
    merchant: Merchant,
    livemode: bool,
    currency: str,
    amount: int | None = None,
    account_id: str | None = None,
) -> Quote:
    """settlement_create's account, default amount and fee, refused as it refuses them (the same
    errors, in the same order), without making or reserving anything: what a person is shown
    before confirming a withdrawal. The balance is read without its lock, so the settlement made
    next checks it again."""
    return _quoted(
        merchant=merchant,
        livemode=livemode,
        currency=currency,
        amount=amount,
        account_id=account_id,
        read_available=lambda: (
            selectors.balance_sums(merchant=merchant, livemode=livemode, currencies=(currency,))[
                currency
            ].available
        ),
    )


def _quoted(
    *,
    merchant: Merchant,
    livemode: bool,
    currency: str,
    amount: int | None,
    account_id: str | None,
    read_available: Callable[[], int],
    minimum: int = 0,
) -> Quote:
    """A settlement's checks, in their order: live approval, the account (missing, then on
    hold), a wallet's whole units, then the available balance (`read_available`, called once the
    account is known) against the amount (by default the most it covers with the fee) and its
    fee; an automatic one below its schedule's `minimum` is refused."""
    if livemode and not merchant.live_approved:
        raise LiveModeNotApproved()
    account = _account_for(merchant, livemode, currency, account_id)
    if account.available_from > timezone.now():
        raise InvalidRequest(
            gettext_noop(
                "This settlement account is new and held until %(date)s, to protect your "
                "money: settlements to it can be made from then."
            ),
            code="settlement_account_on_hold",
            param="settlement_account",
            params={"date": account.available_from.strftime("%Y-%m-%d %H:%M UTC")},
        )
    step = WHOLE_UNITS if account.type == SettlementAccountType.MOBILE_MONEY else 1
    if amount is not None and amount % step:
        raise InvalidRequest(
            gettext_noop("A settlement to a wallet is in whole francs or dollars."),
            code="amount_invalid",
            param="amount",
        )
    available = read_available()

    def fee_of(value: int) -> int:
        return settlement_fee(merchant=merchant, account=account, amount=value)

    if amount is None:
        amount = largest_amount(available, fee_of=fee_of, step=step)
    if amount < minimum:
        raise BalanceInsufficient(
            gettext_noop("%(amount)s is less than the schedule's minimum of %(minimum)s."),
            params={"amount": Amount(amount, currency), "minimum": Amount(minimum, currency)},
            param="amount",
        )
    if amount == 0:
        raise BalanceInsufficient(
            gettext_noop("There is nothing available to settle in %(currency)s."),
            params={"currency": currency},
            param="amount",
        )
    fee = fee_of(amount)
    if amount + fee > available:
        raise BalanceInsufficient(
            gettext_noop(
                "The available %(currency)s balance is %(available)s, less than the %(amount)s "
                "this settlement takes with its fee."
            ),
            params={
                "currency": currency,
                "available": Amount(available, currency),
                "amount": Amount(amount + fee, currency),
            },
            param="amount",
        )
    return Quote(account=account, amount=amount, fee=fee, available=available)


def _sandbox_outcome(settlement: Settlement, now: datetime) -> ProviderOutcome:
    """The sandbox's rail: pending until SANDBOX_SETTLEMENT_DELAY after it was handed on, then
    paid, or failed for the test numbers that fail."""
    due = settlement.provider_requested_at + timedelta(seconds=settings.SANDBOX_SETTLEMENT_DELAY)
    if now < due:
        return ProviderOutcome(status="pending", check_after=(due - now).total_seconds())
    account = settlement.account
    if account.type == SettlementAccountType.BANK_ACCOUNT and account.account_number.endswith(
        "0001"
    ):
        return ProviderOutcome(
            status="failed",
            failure_code="account_invalid",
            failure_message="The bank refused the account number.",
            raw={"sandbox": "account_invalid"},
        )
    if account.type == SettlementAccountType.MOBILE_MONEY and account.phone.endswith("001"):
        return ProviderOutcome(
            status="failed",
            failure_code="recipient_invalid",
            failure_message="The wallet cannot receive money.",
            raw={"sandbox": "recipient_invalid"},
        )
    return ProviderOutcome(
        status="succeeded",
        provider_reference="SBX" + settlement.id.removeprefix("stl_")[:12].upper(),
        raw={"sandbox": "paid"},
    )


def _request(settlement: Settlement) -> PayoutRequest:
    account = settlement.account
    return PayoutRequest(
        reference=settlement.id,
        amount=settlement.amount,
        currency=settlement.currency,
        phone=account.phone,
        network=account.network,
        description=settlement.reference,
    )


def settlement_send(*, settlement_id: str) -> Settlement:
    """Hand a live mobile money settlement to its operator's payout rail, at most once."""
    settlement = Settlement.objects.select_related("account").get(pk=settlement_id)
    if (
        not settlement.livemode
        or settlement.account.type != SettlementAccountType.MOBILE_MONEY
        or not call_claim(Settlement, settlement_id)
    ):
        return settlement
    try:
        adapter = registry.payouts(livemode=True, network=settlement.account.network)
        outcome = adapter.send_payout(_request(settlement))
    except (PayoutNotSent, ProviderUnavailable) as exc:
        logger.warning("settlement %s not sent: %s", settlement_id, exc)
        Settlement.objects.filter(pk=settlement_id, status=SettlementStatus.PENDING).update(
            provider_requested_at=None,
            next_check_at=timezone.now() + timedelta(seconds=SEND_GRACE),
        )
        return Settlement.objects.get(pk=settlement_id)
    except ProviderError as exc:  # the call was made: whatever happened, the status decides
        logger.warning("settlement %s: %s", settlement_id, exc)
        outcome = ProviderOutcome(status="pending", raw={"error": str(exc)})
    settlement_apply_outcome(
        settlement_id=settlement_id,
        outcome=ProviderOutcome(
            status=SettlementStatus.IN_TRANSIT,
            provider_reference=outcome.provider_reference,
            raw=outcome.raw,
        ),
    )
    # Pending: its next check set by the backoff; final: paid or failed at once.
    return settlement_apply_outcome(settlement_id=settlement_id, outcome=outcome)


def settlement_refresh(*, settlement_id: str) -> Settlement:
    """Ask where a settlement that was handed on stands: the sandbox's rail, or the operator of a
    live wallet. A live bank settlement is staff's to settle."""
    settlement = Settlement.objects.select_related("account").get(pk=settlement_id)
    if settlement.status in state.SETTLEMENT_FINAL or settlement.provider_requested_at is None:
        return settlement
    if not settlement.livemode:
        outcome = _sandbox_outcome(settlement, timezone.now())
    elif settlement.account.type == SettlementAccountType.MOBILE_MONEY:
        account = settlement.account
        query = PayoutQuery(
            reference=settlement.id,
            amount=settlement.amount,
            currency=settlement.currency,
            phone=account.phone,
            network=account.network,
            requested_at=settlement.provider_requested_at,
            provider_reference=settlement.provider_reference,
        )
        outcome = provider_ask(
            lambda: registry.mobile_money(livemode=True, network=account.network).payout_status(
                query
            ),
            action="settlement status",
            about=settlement.id,
            unavailable_pending=True,
        )
    else:
        return settlement
    return settlement_apply_outcome(
        settlement_id=settlement_id, outcome=outcome, counter="check_count"
    )


def _window_end(settlement: Settlement):
    """A wallet's status is asked about within the reconciliation window; then staff decide."""
    started = settlement.provider_requested_at or settlement.created_at
    return started + timedelta(seconds=settings.RECONCILIATION_WINDOW)


def _on_final(settlement: Settlement, outcome: ProviderOutcome, now: datetime) -> list[str]:
    if settlement.status == SettlementStatus.PAID:
        settlement.arrival_estimate = now
        return ["arrival_estimate"]
    return []


SETTLEMENT = movements.Kind(
    name="settlement",
    model=Settlement,
    succeeded=SettlementStatus.PAID,
    transitions=state.SETTLEMENT_TRANSITIONS,
    final=state.SETTLEMENT_FINAL,
    signal=events.settlement_changed,
    represent=settlement_repr,
    backoff=lambda settlement: BACKOFF,
    ledger={SettlementStatus.FAILED: LedgerType.SETTLEMENT_FAILURE},  # amount and fee back
    destination_url=lambda settlement: "",
    aliases={"succeeded": SettlementStatus.PAID, "declined": SettlementStatus.FAILED},
    checks_until=_window_end,
    on_final=_on_final,
)


def settlement_apply_outcome(
    *, settlement_id: str, outcome: ProviderOutcome, counter: str | None = None
) -> Settlement:
    """The one place a settlement's status changes (services.movements)."""
    return movements.movement_apply_outcome(
        SETTLEMENT, pk=settlement_id, outcome=outcome, counter=counter
    )


# --- Bank settlements, by staff ------------------------------------------------------------------

BANK_PENDING = Q(
    status=SettlementStatus.PENDING,
    livemode=True,
    account__type=SettlementAccountType.BANK_ACCOUNT,
)
# In a bank transfer file, waiting for staff to record the bank's answer.
BANK_IN_TRANSIT = Q(
    status=SettlementStatus.IN_TRANSIT,
    livemode=True,
    account__type=SettlementAccountType.BANK_ACCOUNT,
) & ~Q(bank_file="")


def settlement_bank_export(
    *, settlement_ids: list[str], staff: str
) -> tuple[str, list[Settlement]]:
    """Put pending live bank settlements in one bank transfer file: each goes in_transit with the
    file's reference and who exported it. Returns the file's reference and the settlements in
    it (those no longer pending are left out); one currency a file (ValueError otherwise)."""
    chosen = list(
        Settlement.objects.filter(BANK_PENDING, pk__in=settlement_ids)
        .select_related("account", "merchant")
        .order_by("created_at", "id")
    )
    if len({settlement.currency for settlement in chosen}) > 1:
        raise ValueError("one currency a bank transfer file")
    reference = "BTF-" + ids.random_token(10).upper()
    exported = []
    for settlement in chosen:
        with transaction.atomic():
            claimed = Settlement.objects.filter(
                pk=settlement.pk,
                status=SettlementStatus.PENDING,
                provider_requested_at__isnull=True,
            ).update(provider_requested_at=timezone.now(), bank_file=reference, exported_by=staff)
            if not claimed:
                continue
            settlement = settlement_apply_outcome(
                settlement_id=settlement.pk,
                outcome=ProviderOutcome(
                    status=SettlementStatus.IN_TRANSIT,
                    raw={"bank_file": reference, "exported_by": staff},
                ),
            )
            Settlement.objects.filter(pk=settlement.pk).update(
                arrival_estimate=timezone.now() + ARRIVAL[SettlementAccountType.BANK_ACCOUNT]
            )
        exported.append(
            Settlement.objects.select_related("account", "merchant").get(pk=settlement.pk)
        )
    return reference, exported


class SameStaffUser(Exception):
    """The staff user who exported a bank settlement cannot also say it was paid."""


def settlement_bank_settle(
    *, settlement_id: str, paid: bool, staff: str, bank_reference: str = "", reason: str = ""
) -> Settlement:
    """Staff record the bank's answer on a settlement in transit in a bank transfer file: paid
    (with the bank's reference), by another staff user than the one who exported it, or failed
    (with a reason), which gives amount and fee back."""
    settlement = Settlement.objects.get(pk=settlement_id)
    if not settlement.bank_file:  # never exported: nobody else has seen it
        raise ValueError("only a settlement in a bank transfer file has the bank's answer")
    if paid and settlement.exported_by == staff:
        raise SameStaffUser(settlement_id)
    outcome = (
        ProviderOutcome(
            status="succeeded",
            provider_reference=bank_reference,
            raw={"paid_by": staff, "bank_reference": bank_reference},
        )
        if paid
        else ProviderOutcome(
            status="failed",
            failure_code="bank_rejected",
            failure_message=reason or "The bank did not pay this settlement.",
            raw={"failed_by": staff, "reason": reason},
        )
    )
    return settlement_apply_outcome(settlement_id=settlement_id, outcome=outcome)


# --- Sweeps --------------------------------------------------------------------------------------


def _enqueue_due(due, enqueue, now) -> int:
    settlement_ids = queues.due_claim(due, now=now)
    for settlement_id in settlement_ids:
        enqueue(settlement_id=settlement_id)
    return len(settlement_ids)


def settlements_send_unsent(*, now=None) -> int:
    """Live wallet settlements never handed to their operator (the broker was down, or the call
    could not be made) are sent now."""
    unsent = Settlement.objects.filter(
        status=SettlementStatus.PENDING,
        livemode=True,
        account__type=SettlementAccountType.MOBILE_MONEY,
        provider_requested_at__isnull=True,
    )
    return _enqueue_due(unsent, queues.settlement_send_enqueue, now or timezone.now())


def settlements_poll_due(*, now=None) -> int:
    """Settlements handed on whose next check is due: the sandbox's, and live wallets'."""
    handed_on = Settlement.objects.filter(
        status__in=[SettlementStatus.PENDING, SettlementStatus.IN_TRANSIT],
        provider_requested_at__isnull=False,
    ).exclude(livemode=True, account__type=SettlementAccountType.BANK_ACCOUNT)
    return _enqueue_due(handed_on, queues.settlement_refresh_enqueue, now or timezone.now())


# --- Schedules -----------------------------------------------------------------------------------


def schedule_period(schedule: SettlementSchedule, now: datetime) -> tuple[str, datetime] | None:
    """The period a schedule is in at `now` and its cutoff (00:00 in the merchant's time zone
    of the day, or of the last chosen weekday), or None for a manual schedule."""
    zone = ZoneInfo(schedule.merchant.time_zone)
    local = now.astimezone(zone)
    if schedule.interval == SettlementInterval.DAILY:
        day = local.date()
        return day.isoformat(), datetime.combine(day, time(0), tzinfo=zone)
    if schedule.interval == SettlementInterval.WEEKLY:
        day = local.date() - timedelta(days=(local.weekday() - schedule.weekday) % 7)
        year, week, _ = day.isocalendar()
        return f"{year}-W{week:02d}", datetime.combine(day, time(0), tzinfo=zone)
    return None


def _settle_entries(settlement: Settlement, cutoff: datetime) -> int:
    """Link to an automatic settlement the balance transactions it pays out: those of its mode
    and currency available at the cutoff and in no earlier settlement, and its own row (as a
    payout's own transaction is listed with the ones it paid out)."""
    entries = (
        LedgerEntry.objects.filter(
            merchant_id=settlement.merchant_id,
            livemode=settlement.livemode,
            currency=settlement.currency,
            settled__isnull=True,
        )
        .filter(
            Q(available_on__lte=cutoff)
            | Q(available_on__isnull=True, created_at__lte=cutoff)
            | Q(source=settlement.id, type=LedgerType.SETTLEMENT)
        )
        .values_list("id", flat=True)
    )
    rows = [SettledEntry(entry_id=entry_id, settlement=settlement) for entry_id in entries]
    SettledEntry.objects.bulk_create(rows, batch_size=2000)
    return len(rows)


def settlement_scheduled(*, schedule: SettlementSchedule, now: datetime) -> Settlement | None:
    """The automatic settlement of a schedule's current period, made once: None when the period
    has one already, or when there is nothing to settle (no account, an account on hold, less
    available than the minimum). Safe to run any number of times at once: the database refuses
    a second settlement of a period, and that attempt leaves nothing behind."""
    found = schedule_period(schedule, now)
    if found is None:
        return None
    period, cutoff = found
    merchant = schedule.merchant
    if (schedule.livemode and not merchant.live_approved) or Settlement.objects.filter(
        merchant=merchant,
        livemode=schedule.livemode,
        currency=schedule.currency,
        period=period,
    ).exists():
        return None
    try:
        with transaction.atomic():
            settlement = settlement_create(
                merchant=merchant,
                livemode=schedule.livemode,
                currency=schedule.currency,
                method=SettlementMethod.AUTOMATIC,
                period=period,
                minimum=schedule.minimum,
            )
            _settle_entries(settlement, cutoff)
            return settlement
    except IntegrityError:  # another beat made this period's settlement meanwhile
        return None
    except (ApiError, ResourceMissing) as exc:  # nothing to settle now: said in the log
        logger.info("no automatic settlement of %s %s: %s", merchant.pk, period, exc)
        return None


def settlements_schedule_due(*, now: datetime | None = None) -> int:
    """Every automatic schedule's settlement of its current period, made if due (beat runs it
    every minute; settlement_scheduled makes each period's once)."""
    now = now or timezone.now()
    made = 0
    schedules = SettlementSchedule.objects.exclude(
        interval=SettlementInterval.MANUAL
    ).select_related("merchant")
    for schedule in schedules:
        made += settlement_scheduled(schedule=schedule, now=now) is not None
    return made
