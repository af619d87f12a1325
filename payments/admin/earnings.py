"""What the service earned (/admin/payments/ledgerentry/fees-earned/, linked from the admin's home
page): the fees of the ledger, net of those given back on failures, per currency, per merchant,
and per day and merchant, of one mode (live unless `?mode=test`) over a period of UTC days (the
last 30 unless `date_from` and `date_to` say otherwise), and the same as CSV (`format=csv`).

Each figure is added up by the database (payments.selectors.fees_earned): a fee counts on the
day of its ledger row, so a payout's fee given back when it fails counts on the day it failed.
It needs the right to see ledger rows, from which anyone could add them up."""

import csv
from datetime import UTC, datetime, time, timedelta
from urllib.parse import urlencode

from django import forms
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpResponseNotAllowed, StreamingHttpResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.money import format_amount, major_units
from payments import selectors
from payments.statement import BOM, spreadsheet_safe

DEFAULT_DAYS = 30
MAX_DAYS = 366  # a year, a leap one included
PAGE_ROWS = 200
CSV_HEADER = (
    "date",
    "mode",
    "merchant",
    "merchant_name",
    "currency",
    "fees_charged",
    "fees_given_back",
    "earned",
    "earned_decimal",
)


class PeriodForm(forms.Form):
    mode = forms.ChoiceField(
        label="Mode", choices=[("live", _("live")), ("test", _("test"))], required=False
    )
    date_from = forms.DateField(
        label=_("From (UTC day)"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    date_to = forms.DateField(
        label=_("To (UTC day, included)"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )

    def clean(self):
        data = super().clean()
        today = timezone.now().astimezone(UTC).date()
        date_to = data.get("date_to") or today
        date_from = data.get("date_from") or date_to - timedelta(days=DEFAULT_DAYS - 1)
        if date_from > date_to:
            raise forms.ValidationError(gettext("The period ends before it begins."))
        if (date_to - date_from).days >= MAX_DAYS:
            raise forms.ValidationError(
                gettext("Choose a period of at most %(days)d days.") % {"days": MAX_DAYS}
            )
        data["date_from"], data["date_to"] = date_from, date_to
        data["livemode"] = data.get("mode") != "test"
        return data


def _money(row: dict) -> dict:
    currency = row["currency"]
    return {
        **row,
        "charged_text": format_amount(row["charged"], currency),
        "given_back_text": format_amount(row["given_back"], currency),
        "earned_text": format_amount(row["earned"], currency),
    }


def _csv(rows, *, livemode: bool, date_from, date_to) -> StreamingHttpResponse:
    class Line:
        def write(self, value: str) -> str:
            return value

    writer = csv.writer(Line(), lineterminator="\r\n")
    mode = "live" if livemode else "test"

    def lines():
        yield BOM + writer.writerow(CSV_HEADER)
        for row in rows:
            yield writer.writerow(
                [
                    row["day"].isoformat(),
                    mode,
                    row["merchant_id"],
                    spreadsheet_safe(row["merchant_name"]),  # typed by people
                    row["currency"],
                    str(row["charged"]),
                    str(row["given_back"]),
                    str(row["earned"]),
                    major_units(row["earned"]),
                ]
            )

    response = StreamingHttpResponse(lines(), content_type="text/csv; charset=utf-8")
    name = f"fees-earned-{mode}-{date_from:%Y-%m-%d}-{date_to:%Y-%m-%d}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def fees_earned_view(model_admin, request):
    if not model_admin.has_view_permission(request):
        raise PermissionDenied
    if request.method not in ("GET", "HEAD"):
        return HttpResponseNotAllowed(["GET", "HEAD"])  # a report: nothing to post
    form = PeriodForm(request.GET)
    if not form.is_valid():
        form_errors = form.non_field_errors() or form.errors
        form = PeriodForm({})  # the default period, below the words that said why
        form.is_valid()
    else:
        form_errors = None
    period = form.cleaned_data
    livemode, date_from, date_to = period["livemode"], period["date_from"], period["date_to"]
    start = datetime.combine(date_from, time.min, tzinfo=UTC)
    end = datetime.combine(date_to + timedelta(days=1), time.min, tzinfo=UTC)
    by_day = selectors.fees_earned(livemode=livemode, start=start, end=end)
    if request.GET.get("format") == "csv" and form_errors is None:
        return _csv(by_day, livemode=livemode, date_from=date_from, date_to=date_to)
    page = Paginator(by_day, PAGE_ROWS).get_page(request.GET.get("page"))
    query = {
        "mode": "live" if livemode else "test",
        "date_from": f"{date_from:%Y-%m-%d}",
        "date_to": f"{date_to:%Y-%m-%d}",
    }
    context = {
        **model_admin.admin_site.each_context(request),
        "title": gettext("Fees earned"),
        "opts": model_admin.model._meta,
        "form": PeriodForm(initial=query),
        "form_errors": form_errors,
        "livemode": livemode,
        "date_from": date_from,
        "date_to": date_to,
        "live_query": urlencode({**query, "mode": "live"}),
        "test_query": urlencode({**query, "mode": "test"}),
        "csv_query": urlencode({**query, "format": "csv"}),
        "page_query": urlencode(query),
        "totals": [
            _money(row)
            for row in selectors.fees_earned_totals(livemode=livemode, start=start, end=end)
        ],
        "merchants": [
            _money(row)
            for row in selectors.fees_earned(livemode=livemode, start=start, end=end, by_day=False)
        ],
        "page": page,
        "days": [_money(row) for row in page.object_list],
    }
    return TemplateResponse(request, "admin/payments/fees_earned.html", context)
