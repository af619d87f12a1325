"""Staff views of merchants: approval for live mode and the card rail, the support contact their
customers see on the payment pages, their API keys (issued here, shown once), their webhook
endpoints (URL per mode, secret rotation), each mode's balance, with links to that mode's
ledger rows and payouts, and their price plan (payments/admin/pricing.py).

Issuing a key needs payments.issue_apikey, which neither seeing nor changing merchants gives: a
live key moves the merchant's money. Rotating a webhook secret needs the right to change webhook
endpoints."""

from datetime import UTC
from urllib.parse import urlencode

from django.contrib import admin
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.cache import add_never_cache_headers
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core.admin.actions import ActionsByPermission
from core.admin.addresses import PublicIdAdmin
from core.admin.columns import merchant_name
from core.admin.display import mode_name, nowrap
from core.money import format_amount
from payments import selectors
from payments.admin.api_keys import ApiKeyInline
from payments.admin.pricing import price_plan_url, price_plan_view
from payments.models import Merchant, Mode
from payments.services import accounts


class MerchantFilter(admin.SimpleListFilter):
    """One merchant's rows (`?merchant=mer_…`), as the merchant's page links to them. Only the
    chosen merchant is offered: a list of every merchant would grow without end."""

    title = _("merchant")
    parameter_name = "merchant"

    def lookups(self, request, model_admin):
        merchant = Merchant.objects.filter(pk=self.value()).first() if self.value() else None
        return [(merchant.pk, merchant.name)] if merchant else []

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(merchant_id=self.value())
        return queryset


class MerchantRowsMixin:
    """The columns of a list of merchants' rows (payouts, ledger rows) that keep it narrow: the
    merchant's name, the mode and a short UTC time; the merchant and the mode are left out when
    the filters already pin them (as the merchant's page links to them)."""

    pinned_by = {"merchant": "merchant_name", "livemode__exact": "mode"}

    def get_list_display(self, request):
        pinned = {column for param, column in self.pinned_by.items() if request.GET.get(param)}
        return [column for column in super().get_list_display(request) if column not in pinned]

    merchant_name = staticmethod(merchant_name)

    @admin.display(description="Mode", ordering="livemode")
    def mode(self, obj):
        return mode_name(obj.livemode)

    @admin.display(description=_("Created (UTC)"), ordering="created_at")
    def created(self, obj):
        """The date and the time, each kept whole: a narrow list puts the time under the date."""
        at = obj.created_at.astimezone(UTC)
        return format_html("{} {}", nowrap(f"{at:%Y-%m-%d}"), nowrap(f"{at:%H:%M}"))


def merchant_rows_url(changelist: str, merchant: Merchant, *, livemode: bool) -> str:
    """A changelist (`admin:…_changelist`) filtered to one merchant and mode."""
    query = urlencode({"merchant": merchant.pk, "livemode__exact": int(livemode)})
    return f"{reverse(changelist)}?{query}"


@admin.register(Merchant)
class MerchantAdmin(PublicIdAdmin, ActionsByPermission, admin.ModelAdmin):
    list_display = ("name", "id", "live_approved", "card_rail_enabled", "created_at")
    list_filter = ("live_approved", "card_rail_enabled")
    list_editable = ("live_approved", "card_rail_enabled")
    search_fields = ("id", "name")
    readonly_fields = ("id", "created_at", "balance", "price_plan")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "id",
                    "name",
                    "live_approved",
                    "card_rail_enabled",
                    "created_at",
                    "balance",
                    "price_plan",
                ),
                "description": _(
                    "Payouts and the merchant's refunds draw on the balance of their mode and "
                    "currency: either is refused (balance_insufficient) when that balance cannot "
                    "cover it. The automatic refund of a late payment is never refused: the late "
                    "payment's own ledger row pays for it."
                ),
            },
        ),
        (
            _("Customer support"),
            {
                "fields": ("support_email", "support_phone"),
                "description": _("Shown to the merchant's customers on every payment page."),
            },
        ),
    )
    inlines = [ApiKeyInline]
    actions = [
        "issue_test_key",
        "issue_live_key",
    ]

    def has_issue_key_permission(self, request):
        return request.user.has_perm("payments.issue_apikey")

    def get_urls(self):
        pricing = path(
            "<str:merchant_id>/pricing/",
            self.admin_site.admin_view(self.price_plan_page),
            name="payments_merchant_pricing",
        )
        return [pricing, *super().get_urls()]  # before the admin's own "<id>/" addresses

    def price_plan_page(self, request, merchant_id):
        return price_plan_view(self, request, merchant_id)

    @admin.display(description=_("Price plan"))
    def price_plan(self, obj):
        """How many rates of the merchant's own the plan has, and the page that shows it."""
        if obj is None or obj._state.adding:
            return "-"
        count = obj.price_rates.count()
        summary = (
            ngettext(
                "The default plan with %(count)d rate of its own.",
                "The default plan with %(count)d rates of its own.",
                count,
            )
            % {"count": count}
            if count
            else gettext("The default plan.")
        )
        return format_html(
            '{} <a href="{}">{}</a>', summary, price_plan_url(obj), gettext("See the plan")
        )

    @admin.display(description=_("Balance"))
    def balance(self, obj):
        """Each mode's available amount per currency: the sum of its ledger rows."""
        if obj is None or obj._state.adding:
            return "-"
        rows = []
        for livemode in (False, True):
            available = selectors.balance_get(merchant=obj, livemode=livemode)
            rows.append(
                (
                    mode_name(livemode),
                    ", ".join(
                        format_amount(amount, currency) for currency, amount in available.items()
                    ),
                    merchant_rows_url(
                        "admin:payments_ledgerentry_changelist", obj, livemode=livemode
                    ),
                    gettext("ledger rows"),
                    merchant_rows_url("admin:payments_payout_changelist", obj, livemode=livemode),
                    gettext("payouts"),
                )
            )
        return format_html(
            '<table class="balance"><tbody>{}</tbody></table>',
            format_html_join(
                "",
                '<tr><th scope="row">{}</th><td>{}</td><td><a href="{}">{}</a></td>'
                '<td><a href="{}">{}</a></td></tr>',
                rows,
            ),
        )

    def _issue(self, request, queryset, mode):
        """The new keys are shown once, on the response page itself: never in a message (Django
        keeps messages in a cookie) or a log line. The page is not cached."""
        issued = [
            (merchant, accounts.api_key_create(merchant=merchant, mode=mode).plaintext)
            for merchant in queryset
        ]
        response = TemplateResponse(
            request,
            "admin/payments/issued_keys.html",
            {
                **self.admin_site.each_context(request),
                "title": gettext("New live secret keys")
                if mode == Mode.LIVE
                else gettext("New test secret keys"),
                "mode": mode,
                "issued": issued,
                "back_url": reverse("admin:payments_merchant_changelist"),
            },
        )
        add_never_cache_headers(response)
        return response

    @admin.action(description=_("Issue a new test secret key"), permissions=["issue_key"])
    def issue_test_key(self, request, queryset):
        return self._issue(request, queryset, Mode.TEST)

    @admin.action(description=_("Issue a new live secret key"), permissions=["issue_key"])
    def issue_live_key(self, request, queryset):
        return self._issue(request, queryset, Mode.LIVE)
