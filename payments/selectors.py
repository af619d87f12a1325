"""Reads: what a merchant in one mode may see, the state of the networks, and the staff's overview
of every merchant."""

from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta

from django.conf import settings
from django.db import connection
from django.db.models import Count, F, Prefetch, Q, QuerySet, Sum
from django.db.models.functions import Coalesce, TruncDate
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _

from core.errors import InvalidRequest, ResourceMissing
from payments.models import (
    Charge,
    ChargeStatus,
    Currency,
    LedgerEntry,
    Merchant,
    Network,
    NetworkState,
    PaymentMethod,
    Payout,
    PayoutStatus,
    Refund,
    RefundReason,
    RefundStatus,
    Settlement,
    SettlementAccount,
)
from payments.providers import registry


def parse_date_bound(value: str, *, param: str, upper: bool) -> tuple[datetime, bool]:
    """(instant, inclusive) for a `YYYY-MM-DD` or ISO 8601 datetime with offset.

    A date_from is inclusive. A date_to date includes that whole UTC day; a date_to datetime is
    exclusive."""
    try:
        day = parse_date(value) if len(value) == 10 else None
    except ValueError:  # well-formed but impossible, e.g. 2026-02-30
        day = None
    if day is not None:
        start = datetime.combine(day, time.min, tzinfo=UTC)
        if not upper:
            return start, True
        try:
            return start + timedelta(days=1), False
        except OverflowError:  # no day after 9999-12-31
            raise _out_of_range(param) from None
    try:
        moment = parse_datetime(value)
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise InvalidRequest(
            _(
                "Invalid %(param)s: use YYYY-MM-DD or an ISO 8601 datetime with offset "
                "(e.g. 2026-11-21T09:30:00Z)."
            )
            % {"param": param},
            param=param,
        )
    try:
        return moment.astimezone(UTC), not upper
    except OverflowError:  # e.g. 9999-12-31T23:59:59-14:00 is past year 9999 in UTC
        raise _out_of_range(param) from None


def _out_of_range(param: str) -> InvalidRequest:
    return InvalidRequest(
        _("Invalid %(param)s: out of range (years 0001 to 9999 in UTC).") % {"param": param},
        param=param,
    )


def _date_bounds(date_from: str | None, date_to: str | None) -> tuple[datetime | None, ...]:
    """(lower, upper): a list's created_at >= lower and < upper, each None when not given."""
    lower = upper = None
    if date_from:
        lower, _ = parse_date_bound(date_from, param="date_from", upper=False)
    if date_to:
        upper, _ = parse_date_bound(date_to, param="date_to", upper=True)
    return lower, upper


def _date_filtered(qs: QuerySet, date_from: str | None, date_to: str | None) -> QuerySet:
    lower, upper = _date_bounds(date_from, date_to)
    if lower is not None:
        qs = qs.filter(created_at__gte=lower)
    if upper is not None:
        qs = qs.filter(created_at__lt=upper)
    return qs


def _filtered(qs: QuerySet, query: dict, names: tuple[str, ...]) -> QuerySet:
    """`qs` narrowed by the list filters `names` the (validated) query gives, and its dates."""
    for name in names:
        if query.get(name):
            qs = qs.filter(**{name: query[name]})
    return _date_filtered(qs, query.get("date_from"), query.get("date_to"))


def settlements_of(*, merchant: Merchant, livemode: bool) -> QuerySet:
    return Settlement.objects.filter(merchant=merchant, livemode=livemode).select_related("account")


def settlement_list(*, merchant: Merchant, livemode: bool, query: dict) -> QuerySet:
    return _filtered(
        settlements_of(merchant=merchant, livemode=livemode), query, ("status", "currency")
    )


def settlement_get(*, merchant: Merchant, livemode: bool, settlement_id: str) -> Settlement:
    settlement = (
        settlements_of(merchant=merchant, livemode=livemode).filter(pk=settlement_id).first()
    )
    if settlement is None:
        raise ResourceMissing("settlement", settlement_id)
    return settlement


def settlement_accounts_of(*, merchant: Merchant, livemode: bool) -> QuerySet:
    """The accounts settlements may go to (not removed), newest first."""
    return SettlementAccount.objects.filter(
        merchant=merchant, livemode=livemode, removed_at__isnull=True
    ).order_by("-created_at", "-id")


def charges_of(*, merchant: Merchant, livemode: bool) -> QuerySet:
    return Charge.objects.filter(merchant=merchant, livemode=livemode)


def charge_list(*, merchant: Merchant, livemode: bool, query: dict) -> QuerySet:
    """The charges a list shows (newest first, by the list's index on merchant, mode and
    created_at, id), narrowed by the query's filters."""
    qs = charges_of(merchant=merchant, livemode=livemode)
    return _filtered(qs, query, ("status", "network", "payment_method"))


def refunds_of_charge(*, charge: Charge) -> QuerySet:
    return Refund.objects.filter(charge=charge)


def refunds_of(*, merchant: Merchant, livemode: bool) -> QuerySet:
    return Refund.objects.filter(merchant=merchant, livemode=livemode)


def payout_list(*, merchant: Merchant, livemode: bool, query: dict) -> QuerySet:
    qs = payouts_of(merchant=merchant, livemode=livemode)
    return _filtered(qs, query, ("status", "network"))


def charge_get(
    *, merchant: Merchant, livemode: bool, charge_id: str, fields: tuple[str, ...] | None = None
) -> Charge:
    """The charge, or ResourceMissing; `fields`: only those columns are read (`.only()`)."""
    qs = charges_of(merchant=merchant, livemode=livemode).filter(pk=charge_id)
    if fields is not None:
        qs = qs.only(*fields)
    charge = qs.first()
    if charge is None:
        raise ResourceMissing("charge", charge_id)
    return charge


def refund_get(*, merchant: Merchant, livemode: bool, refund_id: str) -> Refund:
    refund = Refund.objects.filter(merchant=merchant, livemode=livemode, pk=refund_id).first()
    if refund is None:
        raise ResourceMissing("refund", refund_id)
    return refund


def payouts_of(*, merchant: Merchant, livemode: bool) -> QuerySet:
    return Payout.objects.filter(merchant=merchant, livemode=livemode)


def payout_get(*, merchant: Merchant, livemode: bool, payout_id: str) -> Payout:
    payout = payouts_of(merchant=merchant, livemode=livemode).filter(pk=payout_id).first()
    if payout is None:
        raise ResourceMissing("payout", payout_id)
    return payout


# One currency's balance in one statement, so that it reads the ledger and the checkpoints in the
# same snapshot (a checkpoint committed between two statements would count its rows twice): the
# last checkpoint's total plus the rows written since (those of its epoch), and how many they are.
_BALANCE_SQL = """
SELECT CAST(%s AS VARCHAR(3)),
    COALESCE((SELECT total FROM payments_balancecheckpoint
              WHERE merchant_id = %s AND livemode = %s AND currency = %s
              ORDER BY epoch DESC LIMIT 1), 0) + COALESCE(SUM(amount - fee), 0),
    COUNT(*),
    (SELECT COALESCE(SUM(amount - fee), 0) FROM payments_ledgerentry
     WHERE merchant_id = %s AND livemode = %s AND currency = %s AND available_on > %s)
FROM payments_ledgerentry
WHERE merchant_id = %s AND livemode = %s AND currency = %s
    AND epoch = COALESCE((SELECT epoch FROM payments_balancecheckpoint
                          WHERE merchant_id = %s AND livemode = %s AND currency = %s
                          ORDER BY epoch DESC LIMIT 1), 0)
"""


@dataclass(frozen=True)
class BalanceSums:
    """One currency's balance: `available` to draw on now, `pending` until its rows'
    available_on, and how many rows it added up one by one (those since the last checkpoint)."""

    available: int
    pending: int
    rows: int


def balance_sums(
    *,
    merchant: Merchant | str,
    livemode: bool,
    currencies: tuple[str, ...] | None = None,
    now: datetime | None = None,
) -> dict[str, BalanceSums]:
    """currency → BalanceSums, for each of `currencies` (every currency when None), in one
    statement. The net of every ledger row of that mode and currency (amount − fee) is the last
    checkpoint's total (services.ledger) and the rows written since, which are all it reads one
    by one; pending is the net of the rows whose available_on is after `now`, read from their
    own index whatever their epoch, and available the rest."""
    merchant_id = merchant if isinstance(merchant, str) else merchant.pk
    currencies = currencies or tuple(Currency.values)
    at = connection.ops.adapt_datetimefield_value(now or timezone.now())
    key = [merchant_id, livemode]
    params: list = []
    for currency in currencies:
        params += [currency, *key, currency, *key, currency, at]
        params += [*key, currency, *key, currency]
    with connection.cursor() as cursor:
        cursor.execute(" UNION ALL ".join([_BALANCE_SQL] * len(currencies)), params)
        return {
            currency: BalanceSums(
                available=int(total) - int(pending), pending=int(pending), rows=rows
            )
            for currency, total, rows, pending in cursor.fetchall()
        }


def balance_get(*, merchant: Merchant, livemode: bool) -> dict[str, int]:
    """Every currency's available amount (0 when nothing moved); balance_sums has the pending."""
    sums = balance_sums(merchant=merchant, livemode=livemode)
    return {currency: of_currency.available for currency, of_currency in sums.items()}


def ledger_of(*, merchant: Merchant, livemode: bool) -> QuerySet:
    return LedgerEntry.objects.filter(merchant=merchant, livemode=livemode)


def ledger_list(*, merchant: Merchant, livemode: bool, filters: dict) -> QuerySet:
    qs = ledger_of(merchant=merchant, livemode=livemode).select_related("settled")
    for name in ("currency", "type"):
        if filters.get(name):
            qs = qs.filter(**{name: filters[name]})
    if filters.get("settlement"):
        qs = qs.filter(settled__settlement_id=filters["settlement"])
    return _date_filtered(qs, filters.get("date_from"), filters.get("date_to"))


def ledger_export_rows(*, merchant: Merchant, livemode: bool, filters: dict) -> QuerySet:
    """The rows of a statement, oldest first, with what each came from (for the operator's
    reference and the phone), read in chunks by the caller."""
    return (
        ledger_list(merchant=merchant, livemode=livemode, filters=filters)
        .select_related("charge", "refund", "payout")
        .order_by("created_at", "id")
    )


# --- What the service earned (the staff's fees report) ---------------------------------------------


def fees_earned(*, livemode: bool, start: datetime, end: datetime, by_day: bool = True) -> QuerySet:
    """The fees of the ledger rows written in [start, end) of one mode, added up in the database
    per UTC day (without `by_day`: over the whole period), merchant and currency: `charged` (the
    fees taken), `given_back` (the fees a failure gave back, as a positive amount) and `earned`
    (the one less the other). Rows of dicts with `day` (when by_day), `merchant_id`,
    `merchant_name`, `currency`, `charged`, `given_back`, `earned`; by day, then merchant."""
    rows = LedgerEntry.objects.filter(
        livemode=livemode, created_at__gte=start, created_at__lt=end
    ).exclude(fee=0)
    group = ["merchant_name", "merchant_id", "currency"]
    if by_day:
        rows = rows.annotate(day=TruncDate("created_at", tzinfo=UTC))
        group.insert(0, "day")
    return (
        rows.annotate(merchant_name=F("merchant__name"))
        .values(*group)
        .annotate(
            charged=Coalesce(Sum("fee", filter=Q(fee__gt=0)), 0),
            given_back=Coalesce(-Sum("fee", filter=Q(fee__lt=0)), 0),
            earned=Sum("fee"),
        )
        .order_by(*group)
    )


def fees_earned_totals(*, livemode: bool, start: datetime, end: datetime) -> QuerySet:
    """fees_earned over the whole period and every merchant: one row per currency."""
    return (
        LedgerEntry.objects.filter(livemode=livemode, created_at__gte=start, created_at__lt=end)
        .exclude(fee=0)
        .values("currency")
        .annotate(
            charged=Coalesce(Sum("fee", filter=Q(fee__gt=0)), 0),
            given_back=Coalesce(-Sum("fee", filter=Q(fee__lt=0)), 0),
            earned=Sum("fee"),
        )
        .order_by("currency")
    )


# --- The staff's overview ------------------------------------------------------------------------

# The periodic jobs that fail a charge at its deadline or close an expired session run at least
# once a minute: an item still waiting this long after its deadline is stuck.
OVERDUE_GRACE = timedelta(minutes=2)


@dataclass(frozen=True)
class Volume:
    """The charges of one rail (a network, or card) and currency created in a period."""

    rail: str
    currency: str
    attempts: int
    succeeded: int
    failed: int  # failed or declined
    pending: int
    amount_succeeded: int  # minor units

    @property
    def success_rate(self) -> float | None:
        """Of the charges that are final, the share that succeeded (None when none is final)."""
        final = self.succeeded + self.failed
        return self.succeeded / final if final else None

    @property
    def failure_rate(self) -> float | None:
        final = self.succeeded + self.failed
        return self.failed / final if final else None


def charge_volumes(*, livemode: bool, since: datetime) -> list[Volume]:
    """Charges created since `since`, per rail and currency, busiest first."""
    rows = (
        Charge.objects.filter(livemode=livemode, created_at__gte=since)
        .values("payment_method", "network", "currency")
        .annotate(
            attempts=Count("id"),
            succeeded=Count("id", filter=Q(status=ChargeStatus.SUCCEEDED)),
            failed=Count("id", filter=Q(status__in=[ChargeStatus.FAILED, ChargeStatus.DECLINED])),
            pending=Count("id", filter=Q(status=ChargeStatus.PENDING)),
            amount_succeeded=Coalesce(Sum("amount", filter=Q(status=ChargeStatus.SUCCEEDED)), 0),
        )
        .order_by("-attempts", "network", "currency")
    )
    return [
        Volume(
            rail=row["network"] or row["payment_method"],
            currency=row["currency"],
            attempts=row["attempts"],
            succeeded=row["succeeded"],
            failed=row["failed"],
            pending=row["pending"],
            amount_succeeded=row["amount_succeeded"],
        )
        for row in rows
    ]


def charges_past_deadline(*, livemode: bool, now: datetime) -> QuerySet:
    """Pending charges past their deadline (the prompt's or the card page's) by more than
    OVERDUE_GRACE, oldest first: the status checks should have failed them, so each one points
    at a check that is not running."""
    prompt = timedelta(seconds=settings.MOBILE_MONEY_PROMPT_TIMEOUT) + OVERDUE_GRACE
    card = timedelta(seconds=settings.CARD_PAYMENT_TIMEOUT) + OVERDUE_GRACE
    return (
        Charge.objects.filter(livemode=livemode, status=ChargeStatus.PENDING)
        .annotate(started=Coalesce(F("provider_requested_at"), F("created_at")))
        .filter(
            Q(payment_method=PaymentMethod.CARD, created_at__lte=now - card)
            | Q(payment_method=PaymentMethod.MOBILE_MONEY, started__lte=now - prompt)
        )
        .select_related("merchant")
        .order_by("created_at")
    )


def _pending_past_window(queryset: QuerySet, *, now: datetime) -> QuerySet:
    """The rows of `queryset` created more than RECONCILIATION_WINDOW ago, oldest first."""
    window = timedelta(seconds=settings.RECONCILIATION_WINDOW)
    return (
        queryset.filter(created_at__lte=now - window)
        .select_related("merchant")
        .order_by("created_at")
    )


def refunds_past_window(*, livemode: bool, now: datetime) -> QuerySet:
    """Refunds still pending after RECONCILIATION_WINDOW, the time the service keeps asking the
    provider: staff settle them with what the operator confirms."""
    pending = Refund.objects.filter(livemode=livemode, status=RefundStatus.PENDING)
    return _pending_past_window(pending, now=now)


def payouts_past_window(*, livemode: bool, now: datetime) -> QuerySet:
    """Payouts still pending after RECONCILIATION_WINDOW: staff decide with the operator."""
    pending = Payout.objects.filter(livemode=livemode, status=PayoutStatus.PENDING)
    return _pending_past_window(pending, now=now)


def late_payments(*, livemode: bool, since: datetime) -> QuerySet:
    """Charges whose payment the operator reported after we had stopped waiting (refunded in
    full), newest first, each with its late-payment refund (`late_refund`, a list)."""
    return (
        Charge.objects.filter(livemode=livemode, late_payment_at__gte=since)
        .select_related("merchant")
        .prefetch_related(
            Prefetch(
                "refunds",
                queryset=Refund.objects.filter(reason=RefundReason.LATE_PAYMENT),
                to_attr="late_refund",
            )
        )
        .order_by("-late_payment_at")
    )


# --- Networks ---------------------------------------------------------------------------------
#
# `degraded` is read from the charges themselves: one aggregate over the mobile money charges of
# the mode settled within NETWORK_DEGRADED_WINDOW, by a partial index on (livemode, finalized_at),
# so it costs one index range scan of the last minutes whatever the table's size, stays right
# across processes and restarts, and needs no counter kept anywhere else.

# Failures that say the operator, not the customer, did not deliver: its errors and the prompts
# that were never answered in time. Declines (insufficient funds, refused on the phone) are the
# operator working.
OPERATOR_TROUBLE_CODES = ("provider_error", "timeout")


@dataclass(frozen=True)
class NetworkOverview:
    network: str
    status: str  # operational | degraded | closed
    limits: dict[str, tuple[int, int]]  # currency → (min, max) in minor units
    payouts: bool
    settled: int  # mobile money charges settled within the window
    troubled: int  # of which failed with an operator error or a timeout


def network_limits(*, network: str, currency: str) -> tuple[int, int]:
    """(min, max) in minor units of what `network` takes in `currency` (settings.NETWORK_LIMITS)."""
    low, high = settings.NETWORK_LIMITS[network][currency]
    return low, high


def network_is_closed(*, network: str, livemode: bool) -> bool:
    """Whether staff closed `network` in this mode (asked by every new charge and payout)."""
    return NetworkState.objects.filter(network=network, livemode=livemode, closed=True).exists()


def networks_closed(*, livemode: bool) -> set[str]:
    return set(
        NetworkState.objects.filter(livemode=livemode, closed=True).values_list(
            "network", flat=True
        )
    )


def network_recent_outcomes(*, livemode: bool) -> dict[str, tuple[int, int]]:
    """network → (settled, troubled): the mobile money charges of the mode settled within
    NETWORK_DEGRADED_WINDOW, and those of them that failed with an operator error or timeout."""
    since = timezone.now() - timedelta(seconds=settings.NETWORK_DEGRADED_WINDOW)
    rows = (
        Charge.objects.filter(
            livemode=livemode,
            payment_method=PaymentMethod.MOBILE_MONEY,
            finalized_at__isnull=False,
            finalized_at__gte=since,
        )
        .order_by()
        .values("network")
        .annotate(
            settled=Count("pk"),
            troubled=Count(
                "pk",
                filter=Q(status=ChargeStatus.FAILED, failure_code__in=OPERATOR_TROUBLE_CODES),
            ),
        )
    )
    return {row["network"]: (row["settled"], row["troubled"]) for row in rows}


def network_status(*, closed: bool, settled: int, troubled: int) -> str:
    if closed:
        return "closed"
    if (
        settled >= settings.NETWORK_DEGRADED_MIN_ATTEMPTS
        and troubled >= settings.NETWORK_DEGRADED_THRESHOLD * settled
    ):
        return "degraded"
    return "operational"


def network_overview(*, livemode: bool) -> list[NetworkOverview]:
    """Every network in this mode: its status, limits per currency and whether it pays out.
    Two queries whatever the traffic."""
    closed = networks_closed(livemode=livemode)
    outcomes = network_recent_outcomes(livemode=livemode)
    overview = []
    for network in Network.values:
        settled, troubled = outcomes.get(network, (0, 0))
        overview.append(
            NetworkOverview(
                network=network,
                status=network_status(closed=network in closed, settled=settled, troubled=troubled),
                limits={
                    currency: network_limits(network=network, currency=currency)
                    for currency in Currency.values
                },
                payouts=registry.payouts_available(livemode=livemode, network=network),
                settled=settled,
                troubled=troubled,
            )
        )
    return overview
