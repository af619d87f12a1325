"""Staff view of the ledger: every row, by merchant, mode, currency and type, each linked to the
charge, refund, payout or settlement that moved the money (and, `?settlement=stl_…`, the rows an
automatic settlement paid out), and the fees the service earned on them
(payments/admin/earnings.py). Rows are append-only: never added, changed or deleted here (on
PostgreSQL a trigger refuses it whoever asks)."""

from django.contrib import admin
from django.contrib.admin.utils import quote
from django.db.models import Q
from django.urls import NoReverseMatch, path, reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from core.admin.actions import ActionsByPermission
from core.admin.addresses import PublicIdAdmin
from core.admin.display import nowrap
from core.admin.readonly import ReadOnlyMixin
from core.money import format_amount
from payments.admin.earnings import fees_earned_view
from payments.admin.merchants import MerchantFilter, MerchantRowsMixin
from payments.models import LedgerEntry, LedgerType

# The row's link to what moved the money, and that object's admin page. A refund's row also
# names its charge, so the refund and the payout come first.
SOURCES = (
    ("refund_id", "admin:payments_refund_change"),
    ("payout_id", "admin:payments_payout_change"),
    ("charge_id", "admin:payments_charge_change"),
)
# A settlement's rows name it by their source alone.
SETTLEMENT_TYPES = (LedgerType.SETTLEMENT, LedgerType.SETTLEMENT_FAILURE)


class SettledByFilter(admin.SimpleListFilter):
    """The balance transactions one settlement paid out (`?settlement=stl_…`), as the
    settlement's page links to them. Only the chosen settlement is offered."""

    title = _("settlement")
    parameter_name = "settlement"

    def lookups(self, request, model_admin):
        return [(self.value(), self.value())] if self.value() else []

    def queryset(self, request, queryset):
        if self.value():
            return queryset.filter(settled__settlement_id=self.value())
        return queryset


@admin.register(LedgerEntry)
class LedgerEntryAdmin(
    PublicIdAdmin, MerchantRowsMixin, ActionsByPermission, ReadOnlyMixin, admin.ModelAdmin
):
    # The columns staff need first come first: the rest scroll on a narrow screen.
    list_display = (
        "id",
        "type_and_source",
        "amount_display",
        "created",
        "merchant_name",
        "mode",
    )
    list_filter = (MerchantFilter, SettledByFilter, "livemode", "currency", "type")
    search_fields = ("=id", "=source", "=merchant__id")
    search_help_text = _(
        "Row id, charge / refund / payout / settlement id, or merchant id (exact)."
    )
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-id")
    show_full_result_count = False
    fields = (
        "id",
        "created_at",
        "merchant",
        "livemode",
        "type",
        "amount_display",
        "source_link",
    )
    readonly_fields = fields

    def get_urls(self):
        earned = path(
            "fees-earned/",
            self.admin_site.admin_view(self.fees_earned),
            name="payments_fees_earned",
        )
        return [earned, *super().get_urls()]  # before the admin's own "<id>/" addresses

    def fees_earned(self, request):
        return fees_earned_view(self, request)

    def exactly(self, name, term):
        """A source is found through the index of the one-row-per-source rule, which begins with
        the row's type: naming every type lets PostgreSQL look the source up under each of them
        instead of reading the whole index (or the table)."""
        if name == "source":
            return Q(type__in=LedgerType.values, source=term)
        return super().exactly(name, term)

    @admin.display(description=_("Amount"), ordering="amount")
    def amount_display(self, obj):
        return nowrap(format_amount(obj.amount, obj.currency))

    @admin.display(description=_("Type and source"), ordering="type")
    def type_and_source(self, obj):
        """The type over its charge, refund or payout: one column, so that a list of them fits
        a 1280 px window in French too (an id cannot wrap, nor can "Remboursement")."""
        return format_html("{}<br>{}", obj.get_type_display(), self.source_link(obj))

    @admin.display(description="Source", ordering="source")
    def source_link(self, obj):
        if obj.type in SETTLEMENT_TYPES:
            url = reverse("admin:payments_settlement_change", args=[quote(obj.source)])
            return format_html('<a href="{}">{}</a>', url, obj.source)
        for attribute, view in SOURCES:
            pk = getattr(obj, attribute)
            if pk:
                try:
                    url = reverse(view, args=[quote(pk)])
                except NoReverseMatch:  # that object not in the admin
                    break
                return format_html('<a href="{}">{}</a>', url, obj.source)
        return obj.source
