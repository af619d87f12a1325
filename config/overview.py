"""The staff's overview (/admin/overview/), here in config/ because it reads every app: today's
and this week's charges per network and currency with their success and failure rates, what is
still pending past its deadline, and the late payments. One mode at a time, live unless
`?mode=test`. Times are UTC; weeks start on Monday."""

from datetime import timedelta

from django.contrib import admin
from django.contrib.admin.utils import quote
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext_lazy as _

from checkout.selectors import sessions_past_expiry
from core.money import format_amount
from payments import selectors
from payments.models import Network

LIST_LIMIT = 50  # rows of each list; the count above it says how many there are
RAIL_NAMES = {**dict(Network.choices), "card": _("Card")}


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}".replace("%", "\u00a0%")


def _volume_rows(volumes) -> list[dict]:
    return [
        {
            "rail": RAIL_NAMES.get(v.rail, v.rail),
            "currency": v.currency,
            "attempts": v.attempts,
            "succeeded": v.succeeded,
            "amount": format_amount(v.amount_succeeded, v.currency),
            "failed": v.failed,
            "pending": v.pending,
            "success_rate": _rate(v.success_rate),
            "failure_rate": _rate(v.failure_rate),
        }
        for v in volumes
    ]


def _item(obj, admin_name: str | None, since) -> dict:
    return {
        "id": obj.pk,
        "url": reverse(f"admin:{admin_name}_change", args=[quote(obj.pk)]) if admin_name else "",
        "merchant": obj.merchant.name,
        "amount": format_amount(obj.amount, obj.currency),
        "since": date_format(timezone.localtime(since), "DATETIME_FORMAT"),
    }


def _section(title, help_text, queryset, admin_name, since_field) -> dict:
    return {
        "title": title,
        "help": help_text,
        "count": queryset.count(),
        "items": [
            _item(obj, admin_name, getattr(obj, since_field)) for obj in queryset[:LIST_LIMIT]
        ],
    }


def overview(request):
    if not request.user.has_perm("payments.view_charge"):
        raise PermissionDenied
    livemode = request.GET.get("mode", "live") != "test"
    now = timezone.now()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    week = today - timedelta(days=today.weekday())
    overdue = [
        _section(
            _("Charges"),
            _("Pending after their deadline: the status checks are not running."),
            selectors.charges_past_deadline(livemode=livemode, now=now),
            "payments_charge",
            "created_at",
        ),
        _section(
            _("Refunds"),
            _("Pending after the reconciliation window: settle them with the operator."),
            selectors.refunds_past_window(livemode=livemode, now=now),
            "payments_refund",
            "created_at",
        ),
        _section(
            _("Payouts"),
            _("Pending after the reconciliation window: settle them with the operator."),
            selectors.payouts_past_window(livemode=livemode, now=now),
            None,
            "created_at",
        ),
        _section(
            _("Checkout sessions"),
            _("Still open after they expired: the expiry job is not running."),
            sessions_past_expiry(livemode=livemode, now=now),
            "checkout_checkoutsession",
            "expires_at",
        ),
    ]
    late = [
        {
            **_item(charge, "payments_charge", charge.late_payment_at),
            "rail": RAIL_NAMES.get(charge.network, charge.network),
            "refund": charge.late_refund[0].get_status_display() if charge.late_refund else "—",
        }
        for charge in selectors.late_payments(livemode=livemode, since=week)[:LIST_LIMIT]
    ]
    context = {
        **admin.site.each_context(request),
        "title": _("Overview"),
        "livemode": livemode,
        "periods": [
            (_("Today"), _volume_rows(selectors.charge_volumes(livemode=livemode, since=today))),
            (_("This week"), _volume_rows(selectors.charge_volumes(livemode=livemode, since=week))),
        ],
        "overdue": overdue,
        "late_payments": late,
    }
    return TemplateResponse(request, "admin/overview.html", context)
