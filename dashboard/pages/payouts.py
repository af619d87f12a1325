"""/dashboard/{mode}/payouts/: the merchant's payouts in keyset pages, one payout with its fee,
and a new payout through the API's service (payout_create, its rules and its errors), once per
form, its fee said before it is sent."""

import django_filters
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from core.errors import ApiError
from dashboard import audit
from dashboard.pages.common import livemode, of_merchant, page_of, query_without_cursor
from dashboard.pages.forms import PayoutForm
from dashboard.pages.once import FIELD, once, tell
from dashboard.pages.search import DateBounds, date_range
from dashboard.permissions import live_sensitive, merchant_view
from dashboard.plan import plan_words
from payments import pricing, selectors
from payments.models import Network, PayoutStatus, PricingKind
from payments.services.payouts import payout_create


class PayoutFilter(DateBounds, django_filters.FilterSet):
    status = django_filters.ChoiceFilter(
        label=gettext_lazy("Status"),
        choices=PayoutStatus.choices,
        empty_label=pgettext_lazy("filter", "All"),
    )
    network = django_filters.ChoiceFilter(
        label=gettext_lazy("Network"),
        choices=Network.choices,
        empty_label=pgettext_lazy("filter", "All"),
    )
    date_from, date_to = date_range()


@merchant_view("view")
def payout_list(request, mode):
    scope = selectors.payouts_of(merchant=request.merchant, livemode=livemode(request))
    found = PayoutFilter(request.GET or None, queryset=scope)
    return render(
        request,
        "dashboard/payouts/list.html",
        {
            "filter": found,
            "page": page_of(request, found.qs, scope=scope),
            "query": query_without_cursor(request),
        },
    )


@merchant_view("view")
def payout_detail(request, mode, payout_id):
    payout = of_merchant(
        selectors.payout_get,
        merchant=request.merchant,
        livemode=livemode(request),
        payout_id=payout_id,
    )
    return render(
        request,
        "dashboard/payouts/detail.html",
        {"payout": payout, "taken": payout.amount + payout.fee},
    )


def _new(request, form: PayoutForm, *, status: int = 200):
    """The payout form, with what payouts cost by the merchant's plan said before sending."""
    (fees,) = plan_words(pricing.plan_of(request.merchant), kinds=(PricingKind.PAYOUT,))
    return render(
        request, "dashboard/payouts/new.html", {"form": form, "fees": fees}, status=status
    )


@merchant_view("payouts")
@live_sensitive
def payout_new(request, mode):
    if request.method != "POST":
        return _new(request, PayoutForm())
    form = PayoutForm(request.POST)
    live = livemode(request)
    fields = form.payout_fields(livemode=live, merchant=request.merchant)
    if fields is None:
        return _new(request, form, status=400)

    def pay_out() -> str:
        payout = payout_create(merchant=request.merchant, livemode=live, **fields)
        audit.record(request, "payout.created", object_id=payout.id)
        return payout.id

    try:
        done = once(request, key=form.cleaned_data[FIELD], data=fields, operation=pay_out)
    except ApiError as error:
        form.add_api_error(error)
        return _new(request, form, status=error.status)
    tell(
        request,
        done,
        made=_("Payout %(id)s created."),
        again=_("This payout form had already been sent: payout %(id)s."),
    )
    return redirect("dashboard:payout", mode=mode, payout_id=done.object_id)
