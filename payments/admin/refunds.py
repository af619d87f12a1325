"""Staff views of refunds: a read-only list and detail page, and an inline for the charge page.

Refunds are made through the API only (the money rules live in services.refunds.refund_create); staff
may ask the provider where pending refunds stand and, for a refund the provider cannot be asked
about (Airtel and M-Pesa publish no refund enquiry), record what the operator confirmed — after a
confirmation page, through services.refunds.refund_resolve. Both may settle a refund: they need
payments.change_refund.
"""

from django.contrib import admin, messages
from django.contrib.admin.utils import quote
from django.urls import NoReverseMatch, reverse
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.admin.actions import ActionsByPermission, ask_again, confirmation_page
from core.admin.addresses import PublicIdAdmin
from core.admin.columns import merchant_name
from core.admin.display import json_block, status_word
from core.admin.readonly import ReadOnlyMixin
from core.money import format_amount
from payments.models import Refund, RefundStatus
from payments.providers.base import STAFF_REASON
from payments.services import refunds


def charge_link(refund: Refund) -> str:
    try:
        url = reverse("admin:payments_charge_change", args=[quote(refund.charge_id)])
    except NoReverseMatch:  # charges not in the admin
        return refund.charge_id
    return format_html('<a href="{}">{}</a>', url, refund.charge_id)


@admin.register(Refund)
class RefundAdmin(PublicIdAdmin, ActionsByPermission, ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "id",
        "charge_display",
        "amount_display",
        "status",
        "reason",
        "livemode",
        merchant_name,
        "created_at",
    )
    list_filter = ("status", "reason", "livemode")
    search_fields = ("=id", "=charge__id", "=provider_reference")
    search_help_text = _("Refund id, charge id or provider reference (exact).")
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-id")
    fields = (
        "id",
        "charge_display",
        "merchant",
        "livemode",
        "amount_display",
        "status",
        "reason",
        "metadata_display",
        "staff_reason_display",
        "failure_code",
        "failure_message",
        "payment_reference",
        "provider_reference",
        "provider_raw_display",
        "next_check_at",
        "created_at",
        "updated_at",
    )
    readonly_fields = fields
    actions = ["check_with_provider", "mark_succeeded", "mark_failed"]

    def has_resolve_permission(self, request):
        return request.user.has_perm("payments.change_refund")

    has_check_permission = has_resolve_permission

    @admin.display(description=_("Charge"), ordering="charge")
    def charge_display(self, obj):
        return charge_link(obj)

    @admin.display(description=_("Amount"), ordering="amount")
    def amount_display(self, obj):
        return format_amount(obj.amount, obj.currency)

    @admin.display(description=_("Metadata"))
    def metadata_display(self, obj):
        return json_block(obj.metadata)

    @admin.display(description=_("Waiting for staff because"))
    def staff_reason_display(self, obj):
        reasons = [a[STAFF_REASON] for a in obj.provider_raw if STAFF_REASON in a]
        return reasons[-1] if reasons else "-"

    @admin.display(description=_("Provider answers"))
    def provider_raw_display(self, obj):
        return json_block(obj.provider_raw)

    @admin.action(
        description=_("Ask the provider where the selected pending refunds stand"),
        permissions=["check"],
    )
    def check_with_provider(self, request, queryset):
        pending = list(queryset.filter(status=RefundStatus.PENDING).values_list("id", flat=True))
        ask_again(
            self,
            request,
            pending,
            refresh=lambda pk: refunds.refund_refresh(refund_id=pk),
            each=gettext("Refund %(id)s: %(status)s."),
            none=gettext("None of the selected refunds is pending."),
        )

    def _resolve(self, request, queryset, *, succeeded: bool, action: str):
        waiting = list(
            queryset.filter(status=RefundStatus.PENDING, provider_requested_at__isnull=False)
            .select_related("charge")
            .order_by("created_at")
        )
        if not waiting:
            self.message_user(
                request,
                gettext("None of the selected refunds is pending at its provider."),
                messages.INFO,
            )
            return None
        page = confirmation_page(
            self,
            request,
            waiting,
            template="admin/payments/refund/resolve_confirm.html",
            succeeded=succeeded,
            action=action,
            title=gettext("Confirm what the provider told you"),
            refunds=waiting,
        )
        if page:
            return page
        for refund in waiting:
            done = refunds.refund_resolve(
                refund_id=refund.id, succeeded=succeeded, staff=request.user.get_username()
            )
            state = status_word(done) if done else gettext("unchanged (no longer pending)")
            self.message_user(
                request,
                gettext("Refund %(id)s: %(status)s.") % {"id": refund.id, "status": state},
                messages.SUCCESS,
            )
        return None

    @admin.action(
        description=_("The provider confirmed it paid back the selected pending refunds"),
        permissions=["resolve"],
    )
    def mark_succeeded(self, request, queryset):
        return self._resolve(request, queryset, succeeded=True, action="mark_succeeded")

    @admin.action(
        description=_("The provider confirmed it did NOT pay back the selected pending refunds"),
        permissions=["resolve"],
    )
    def mark_failed(self, request, queryset):
        return self._resolve(request, queryset, succeeded=False, action="mark_failed")


class RefundInline(ReadOnlyMixin, admin.TabularInline):
    """The refunds of one charge, on the charge's page (ChargeAdmin.inlines)."""

    model = Refund
    fk_name = "charge"
    extra = 0
    fields = (
        "id",
        "amount_display",
        "status",
        "reason",
        "payment_reference",
        "failure_code",
        "created_at",
    )
    readonly_fields = fields
    show_change_link = True
    ordering = ("-created_at", "-id")

    @admin.display(description=_("Amount"))
    def amount_display(self, obj):
        return format_amount(obj.amount, obj.currency)
