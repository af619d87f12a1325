"""/dashboard/{mode}/settlements/: the merchant's settlements in keyset pages beside what is
available and pending, one settlement with the balance transactions it paid out, a withdrawal
to one of the merchant's own accounts (the API's settlement_create, its rules and errors, once per
form; its fee shown before it is confirmed; live: two-factor and a recent sign-in) and the
schedule of automatic settlements per currency. Withdrawing and the schedule are the payout
roles'; every member sees the settlements."""

import django_filters
from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from core.errors import ApiError
from core.money import major_units
from dashboard import audit, words
from dashboard.models import Action
from dashboard.pages.common import livemode, of_merchant, page_of, query_without_cursor
from dashboard.pages.forms import ScheduleForm, SettlementForm
from dashboard.pages.once import FIELD, once, tell
from dashboard.pages.search import DateBounds, date_range
from dashboard.permissions import live_sensitive, merchant_view
from dashboard.plan import plan_words
from payments import pricing, selectors
from payments.models import (
    Currency,
    LedgerEntry,
    PricingKind,
    SettlementAccount,
    SettlementInterval,
    SettlementSchedule,
    SettlementStatus,
)
from payments.services import settlements


class SettlementFilter(DateBounds, django_filters.FilterSet):
    status = django_filters.ChoiceFilter(
        label=gettext_lazy("Status"),
        choices=SettlementStatus.choices,
        empty_label=pgettext_lazy("filter", "All"),
    )
    currency = django_filters.ChoiceFilter(
        label=gettext_lazy("Currency"),
        choices=Currency.choices,
        empty_label=pgettext_lazy("filter", "All"),
    )
    date_from, date_to = date_range()


def _schedules(merchant, live: bool) -> list[dict]:
    """Each currency's schedule as it stands (on demand when none was saved), in words."""
    saved = {
        schedule.currency: schedule
        for schedule in SettlementSchedule.objects.filter(merchant=merchant, livemode=live)
    }
    shown = []
    for currency in Currency.values:
        schedule = saved.get(currency) or SettlementSchedule(currency=currency)
        shown.append(
            {
                "currency": currency,
                "schedule": schedule,
                "words": words.schedule_words(
                    interval=schedule.interval,
                    weekday=schedule.weekday,
                    minimum=schedule.minimum,
                    currency=currency,
                ),
            }
        )
    return shown


def _balances(merchant, live: bool) -> list[tuple[str, int, int]]:
    sums = selectors.balance_sums(merchant=merchant, livemode=live)
    return [(currency, of.available, of.pending) for currency, of in sorted(sums.items())]


@merchant_view("view")
def settlement_list(request, mode):
    live = livemode(request)
    scope = selectors.settlements_of(merchant=request.merchant, livemode=live)
    found = SettlementFilter(request.GET or None, queryset=scope)
    return render(
        request,
        "dashboard/settlements/list.html",
        {
            "filter": found,
            "page": page_of(request, found.qs, scope=scope),
            "query": query_without_cursor(request),
            "balances": _balances(request.merchant, live),
            "schedules": _schedules(request.merchant, live),
            "accounts": selectors.settlement_accounts_of(
                merchant=request.merchant, livemode=live
            ).exists(),
            "zone": words.ZONE_NAMES.get(request.merchant.time_zone, request.merchant.time_zone),
        },
    )


@merchant_view("view")
def settlement_detail(request, mode, settlement_id):
    settlement = of_merchant(
        selectors.settlement_get,
        merchant=request.merchant,
        livemode=livemode(request),
        settlement_id=settlement_id,
    )
    paid_out = (
        LedgerEntry.objects.filter(settled__settlement=settlement)
        .select_related(None)
        .order_by("-created_at", "-id")
    )
    return render(
        request,
        "dashboard/settlements/detail.html",
        {
            "settlement": settlement,
            "account": words.account_name(settlement.account),
            "taken": settlement.amount + settlement.fee,
            "entries": paid_out[:100],
            "entry_count": paid_out.count(),
        },
    )


def _accounts(request, live: bool) -> list[SettlementAccount]:
    found = selectors.settlement_accounts_of(merchant=request.merchant, livemode=live)
    return list(found.order_by("currency", "created_at", "id"))


def _new(request, form: SettlementForm, *, quote=None, status: int = 200):
    """The withdrawal form, with what settlements cost by the merchant's plan; with a quote,
    what this one would be (amount, fee, what it takes), to confirm."""
    (fees,) = plan_words(pricing.plan_of(request.merchant), kinds=(PricingKind.SETTLEMENT,))
    return render(
        request,
        "dashboard/settlements/new.html",
        {
            "form": form,
            "fees": fees,
            "quote": quote,
            "quote_account": words.account_name(quote.account) if quote else "",
            "balances": _balances(request.merchant, livemode(request)),
            "has_accounts": bool(form.fields["settlement_account"].choices[1:]),
        },
        status=status,
    )


@merchant_view("settlements")
@live_sensitive
def settlement_new(request, mode):
    live = livemode(request)
    accounts = _accounts(request, live)
    time_zone = request.merchant.time_zone
    if request.method != "POST":
        return _new(request, SettlementForm(accounts=accounts, time_zone=time_zone))
    form = SettlementForm(request.POST, accounts=accounts, time_zone=time_zone)
    if not form.is_valid():
        return _new(request, form, status=400)
    data = form.cleaned_data
    fields = {
        "currency": data["currency"],
        "amount": data["amount"],
        "account_id": data["settlement_account"] or None,
    }
    if not data["confirmed"]:
        # First the quote: the fee said before anything is taken.
        try:
            quote = settlements.settlement_quote(merchant=request.merchant, livemode=live, **fields)
        except ApiError as error:
            form.add_api_error(error)
            return _new(request, form, status=error.status)
        # Confirmed, it is what was shown: this amount to this account, whatever the balance
        # has become meanwhile (settlement_create checks it again).
        confirm = SettlementForm(
            initial={
                FIELD: data[FIELD],
                "currency": data["currency"],
                "amount": major_units(quote.amount),
                "settlement_account": quote.account.id,
                "confirmed": True,
            },
            accounts=accounts,
            time_zone=time_zone,
        )
        return _new(request, confirm, quote=quote)

    def withdraw() -> str:
        settlement = settlements.settlement_create(
            merchant=request.merchant, livemode=live, **fields
        )
        audit.record(request, Action.SETTLEMENT_CREATED, object_id=settlement.id)
        return settlement.id

    try:
        done = once(request, key=data[FIELD], data=fields, operation=withdraw)
    except ApiError as error:
        # Refused (the balance changed since the fee was shown): the form again, to be quoted
        # again before anything is confirmed.
        again = request.POST.copy()
        again["confirmed"] = ""
        retry = SettlementForm(again, accounts=accounts, time_zone=time_zone)
        retry.is_valid()
        retry.add_api_error(error)
        return _new(request, retry, status=error.status)
    tell(
        request,
        done,
        made=_("Settlement %(id)s created."),
        again=_("This withdrawal form had already been sent: settlement %(id)s."),
    )
    return redirect("dashboard:settlement", mode=mode, settlement_id=done.object_id)


@merchant_view("settlements")
def settlement_schedule(request, mode):
    live = livemode(request)
    shown = _schedules(request.merchant, live)
    forms = {
        item["currency"]: ScheduleForm(
            prefix=item["currency"].lower(),
            initial={
                "interval": item["schedule"].interval,
                "weekday": item["schedule"].weekday,
                "minimum": major_units(item["schedule"].minimum)
                if item["schedule"].minimum
                else "",
            },
        )
        for item in shown
    }
    status = 200
    if request.method == "POST":
        currency = request.POST.get("currency", "")
        if currency not in forms:
            return redirect("dashboard:settlement-schedule", mode=mode)
        form = ScheduleForm(request.POST, prefix=currency.lower())
        forms[currency] = form
        if form.is_valid():
            changed = schedule_update(
                request,
                livemode=live,
                currency=currency,
                interval=form.cleaned_data["interval"],
                weekday=form.cleaned_data["weekday"],
                minimum=form.cleaned_data["minimum"] or 0,
            )
            if changed:
                messages.success(
                    request, _("The %(currency)s schedule is saved.") % {"currency": currency}
                )
            return redirect("dashboard:settlements", mode=mode)
        status = 400
    return render(
        request,
        "dashboard/settlements/schedule.html",
        {"items": [(item, forms[item["currency"]]) for item in shown]},
        status=status,
    )


@transaction.atomic
def schedule_update(
    request, *, livemode: bool, currency: str, interval: str, weekday: int, minimum: int
) -> bool:
    """Save one currency's schedule (the weekday kept only for a weekly one), audited with what
    it was and now is; False when nothing changed."""
    if interval != SettlementInterval.WEEKLY:
        weekday = 0
    schedule, _created = SettlementSchedule.objects.select_for_update().get_or_create(
        merchant=request.merchant, livemode=livemode, currency=currency
    )
    before = {
        "interval": schedule.interval,
        "weekday": schedule.weekday,
        "minimum": schedule.minimum,
    }
    after = {"interval": interval, "weekday": weekday, "minimum": minimum}
    if before == after:
        return False
    schedule.interval, schedule.weekday, schedule.minimum = interval, weekday, minimum
    schedule.updated_at = timezone.now()
    schedule.save(update_fields=["interval", "weekday", "minimum", "updated_at"])
    audit.record(
        request,
        Action.SETTLEMENT_SCHEDULE_UPDATED,
        object_id=currency,
        details={"currency": currency, "before": before, "after": after},
    )
    return True
