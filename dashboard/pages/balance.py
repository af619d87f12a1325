"""/dashboard/{mode}/balance/: what is available and pending per currency (the ledger's sums, as
GET /v1/balance) and what payouts, settlements and refunds in progress are taking out, the
ledger's rows (amount, fee, net, available on) in keyset pages, and the statement as CSV
(payments.statement, the API's export: the same file)."""

from dataclasses import dataclass

import django_filters
from django.db.models import F, Sum
from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone, translation
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core import slots
from core.errors import StatementsBusy
from dashboard import downloads
from dashboard.pages.common import livemode, page_of, query_without_cursor
from dashboard.pages.search import DateBounds, date_range
from dashboard.permissions import can, forbidden, merchant_view
from payments import selectors
from payments.models import Currency, LedgerType, SettlementStatus
from payments.services import ledger
from payments.statement import (
    EXPORT_CHUNK,
    STATEMENTS_AT_ONCE,
    rows_in_chunks,
    statement_lines,
)


class LedgerFilter(DateBounds, django_filters.FilterSet):
    currency = django_filters.ChoiceFilter(
        label=_("Currency"), choices=Currency.choices, empty_label=pgettext_lazy("filter", "All")
    )
    type = django_filters.ChoiceFilter(
        label=_("Kind"), choices=LedgerType.choices, empty_label=pgettext_lazy("filter", "All")
    )
    date_from, date_to = date_range()


@merchant_view("view")
def balance(request, mode):
    live = livemode(request)
    scope = selectors.ledger_of(merchant=request.merchant, livemode=live)
    found = LedgerFilter(request.GET or None, queryset=scope)
    if request.GET.get("format") in ("csv", downloads.PEOPLE):
        return _statement(request, found, people=request.GET["format"] == downloads.PEOPLE)
    sums = selectors.balance_sums(merchant=request.merchant, livemode=live)
    ledger.ledger_checkpoints_ask(merchant_id=request.merchant.pk, livemode=live, sums=sums)
    outgoing = _on_its_way_out(request.merchant, live)
    return render(
        request,
        "dashboard/balance.html",
        {
            "balances": [
                Balance(
                    currency=currency,
                    available=of_currency.available,
                    pending=of_currency.pending,
                    outgoing=outgoing.get(currency, 0),
                )
                for currency, of_currency in sorted(sums.items())
            ],
            "filter": found,
            "page": page_of(request, found.qs, scope=scope),
            "query": query_without_cursor(request),
            "now": timezone.now(),
        },
    )


@dataclass(frozen=True)
class Balance:
    """One currency's balance as the page shows it: `available` to pay out or refund now,
    `pending` until its payments become available, and `outgoing`, what payouts, settlements and
    refunds not yet final took from the available part (given back if they fail)."""

    currency: str
    available: int
    pending: int
    outgoing: int


def _on_its_way_out(merchant, live: bool) -> dict[str, int]:
    """Per currency, what payouts and settlements (amount and fee) and refunds not yet final
    took from the available balance."""
    totals: dict[str, int] = {}
    for rows, taken, statuses in (
        (
            selectors.payouts_of(merchant=merchant, livemode=live),
            F("amount") + F("fee"),
            ["pending"],
        ),
        (selectors.refunds_of(merchant=merchant, livemode=live), F("amount"), ["pending"]),
        (
            selectors.settlements_of(merchant=merchant, livemode=live).select_related(None),
            F("amount") + F("fee"),
            [SettlementStatus.PENDING, SettlementStatus.IN_TRANSIT],
        ),
    ):
        sums = rows.filter(status__in=statuses).values("currency").annotate(total=Sum(taken))
        for row in sums.order_by():
            totals[row["currency"]] = totals.get(row["currency"], 0) + row["total"]
    return totals


def _statement(request, found: LedgerFilter, *, people: bool):
    """The ledger as the API's CSV statement (payments.statement), oldest first, for the roles
    that may export statements; or (`people`) as a spreadsheet in the user's language reads it,
    newest first as the page (dashboard.downloads)."""
    if not can(request.membership, "payouts"):
        return forbidden(request)
    rows = found.qs.select_related("charge", "refund", "payout").order_by("created_at", "id")
    live = livemode(request)
    slot = slots.take("statement", f"{request.merchant.pk}:{live:d}", STATEMENTS_AT_ONCE)
    if slot is None:
        error = StatementsBusy(params={"count": STATEMENTS_AT_ONCE})
        return render(request, "dashboard/403.html", {"reason": error.localized()}, status=429)
    stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
    if people:
        lines = downloads.statement_lines(
            downloads.people_csv(request), downloads.newest_first_in_chunks(rows)
        )
        return downloads.attachment(
            slot.holding(lines),
            f"balance-transactions-{request.mode}-{stamp}-{translation.get_language()}.csv",
        )
    response = StreamingHttpResponse(
        slot.holding(statement_lines(rows_in_chunks(rows, chunk=EXPORT_CHUNK))),
        content_type="text/csv; charset=utf-8",
    )
    response["Content-Disposition"] = (
        f'attachment; filename="balance-transactions-{request.mode}-{stamp}.csv"'
    )
    return response
