"""Staff views of payouts: a read-only list and detail page (payouts are made through the API
only) and "check status now", which asks the operator where pending payouts stand.

A payout its operator could not confirm before its automatic status checks ended waits for staff:
they record what the operator confirmed ("paid" / "not paid") after a confirmation page, through
services.payouts.payout_resolve, which settles it like any answer (its ledger row and event).
Both may settle a payout: they need payments.change_payout.
"""

from django.contrib import admin, messages
from django.contrib.admin.utils import quote
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.admin.actions import ActionsByPermission, ask_again, confirmation_page
from core.admin.addresses import PublicIdAdmin
from core.admin.display import fieldset_fields, json_block, nowrap, status_word
from core.admin.readonly import ReadOnlyMixin
from core.money import format_amount
from payments import phones
from payments.admin.merchants import MerchantFilter, MerchantRowsMixin
from payments.models import LedgerEntry, Payout, PayoutStatus
from payments.services import payouts as payout_services


class WaitingForStaffFilter(admin.SimpleListFilter):
    title = _("waiting for staff")
    parameter_name = "waiting_for_staff"

    def lookups(self, request, model_admin):
        return [("yes", _("Operator could not confirm"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(payout_services.WAITING_FOR_STAFF)
        return queryset


@admin.register(Payout)
class PayoutAdmin(
    PublicIdAdmin, MerchantRowsMixin, ActionsByPermission, ReadOnlyMixin, admin.ModelAdmin
):
    # The columns staff need first come first: the rest scroll on a narrow screen.
    list_display = (
        "id",
        "amount_display",
        "status_display",
        "recipient",
        "merchant_name",
        "mode",
        "created",
    )
    list_filter = (
        MerchantFilter,
        "status",
        WaitingForStaffFilter,
        "network",
        "livemode",
        "currency",
    )
    search_fields = ("=id", "=provider_reference", "=phone", "=merchant__id")
    search_help_text = _("Payout id, operator reference, phone (+243…, 0…) or merchant id (exact).")
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-id")
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "id",
                    "merchant",
                    "livemode",
                    "status_display",
                    "resolved_by_display",
                    "failure_code",
                    "failure_message",
                )
            },
        ),
        (_("Money"), {"fields": ("amount_display", "ledger_display", "network", "phone")}),
        (_("Merchant's data"), {"fields": ("description", "metadata_display", "callback_url")}),
        (
            _("Operator"),
            {
                "fields": (
                    "provider",
                    "provider_reference",
                    "provider_requested_at",
                    "check_count",
                    "checks_display",
                    "provider_raw_display",
                )
            },
        ),
        (_("Times"), {"fields": ("created_at", "updated_at", "finalized_at")}),
    )
    readonly_fields = fieldset_fields(fieldsets)
    actions = ["check_with_operator", "mark_succeeded", "mark_failed"]

    def has_resolve_permission(self, request):
        return request.user.has_perm("payments.change_payout")

    has_check_permission = has_resolve_permission

    def get_search_results(self, request, queryset, search_term):
        # A phone as staff read it from a customer or a statement (0812 345 678, 243812…).
        phone = phones.normalise(search_term.strip())
        if phones.is_valid_drc_mobile(phone):
            return queryset.filter(phone=phone), False
        return super().get_search_results(request, queryset, search_term)

    @admin.display(description=_("Amount"), ordering="amount")
    def amount_display(self, obj):
        return nowrap(format_amount(obj.amount, obj.currency))

    @admin.display(description=_("Status"), ordering="status")
    def status_display(self, obj):
        if payout_services.is_waiting_for_staff(obj):
            return format_html(
                "{}<br><strong>{}</strong>",
                obj.get_status_display(),
                nowrap(_("waiting for staff")),
            )
        return obj.get_status_display()

    @admin.display(description=_("Recipient"), ordering="phone")
    def recipient(self, obj):
        return format_html("{}<br>{}", obj.phone, obj.get_network_display())

    @admin.display(description=_("Settled by staff"))
    def resolved_by_display(self, obj):
        """Who recorded what the operator confirmed (payout_resolve keeps it with the answers)."""
        names = [answer["resolved_by"] for answer in obj.provider_raw if "resolved_by" in answer]
        return names[-1] if names else "-"

    @admin.display(description=_("Metadata"))
    def metadata_display(self, obj):
        return json_block(obj.metadata)

    @admin.display(description=_("Ledger rows"))
    def ledger_display(self, obj):
        rows = LedgerEntry.objects.filter(payout=obj).order_by("created_at", "id")
        if not rows:
            return "-"
        return format_html_join(
            mark_safe("<br>"),
            '<a href="{}">{}</a> {} {}',
            (
                (
                    reverse("admin:payments_ledgerentry_change", args=[quote(row.pk)]),
                    row.pk,
                    row.type,
                    format_amount(row.amount, row.currency),
                )
                for row in rows
            ),
        )

    @admin.display(description=_("Status checks"))
    def checks_display(self, obj):
        if obj.status != PayoutStatus.PENDING:
            return "-"
        if obj.provider_requested_at is None:
            return gettext("not yet handed to the operator")
        if obj.next_check_at is None:
            return gettext(
                "over: the operator could not confirm it; record what the operator confirmed "
                "(list actions)"
            )
        return gettext("next at %(time)s UTC") % {"time": f"{obj.next_check_at:%Y-%m-%d %H:%M:%S}"}

    @admin.display(description=_("Operator answers (latest last)"))
    def provider_raw_display(self, obj):
        if not obj.provider_raw:
            return "-"
        return json_block(obj.provider_raw)

    @admin.action(
        description=_("Check status now: ask the operator about the selected payouts"),
        permissions=["check"],
    )
    def check_with_operator(self, request, queryset):
        sent = list(
            queryset.filter(status=PayoutStatus.PENDING, provider_requested_at__isnull=False)
            .order_by("created_at")
            .values_list("id", flat=True)
        )
        ask_again(
            self,
            request,
            sent,
            refresh=lambda pk: payout_services.payout_refresh(payout_id=pk),
            each=gettext("Payout %(id)s: %(status)s."),
            none=gettext("None of the selected payouts is pending at its operator."),
        )

    def _resolve(self, request, queryset, *, succeeded: bool, action: str):
        waiting = list(
            queryset.filter(payout_services.WAITING_FOR_STAFF)
            .select_related("merchant")
            .order_by("created_at")
        )
        if not waiting:
            self.message_user(
                request,
                gettext(
                    "None of the selected payouts is waiting for staff (pending at its operator "
                    "after its status checks ended)."
                ),
                messages.INFO,
            )
            return None
        page = confirmation_page(
            self,
            request,
            waiting,
            template="admin/payments/payout/resolve_confirm.html",
            succeeded=succeeded,
            action=action,
            title=gettext("Confirm what the operator told you"),
            payouts=waiting,
            changelist_url=self._changelist_url(request),
        )
        if page:
            return page
        wanted = PayoutStatus.SUCCEEDED if succeeded else PayoutStatus.FAILED
        for payout in waiting:
            done = payout_services.payout_resolve(
                payout_id=payout.id, succeeded=succeeded, staff=request.user.get_username()
            )
            now = done or Payout.objects.get(pk=payout.id)
            said = {"id": payout.id, "status": status_word(now)}
            if now.status == wanted:
                self.message_user(
                    request, gettext("Payout %(id)s: %(status)s.") % said, messages.SUCCESS
                )
            else:  # settled meanwhile by a status check: what the operator answered stands
                self.message_user(
                    request,
                    gettext("Payout %(id)s: unchanged, already %(status)s.") % said,
                    messages.WARNING,
                )
        return None

    def _changelist_url(self, request) -> str:
        """Back to the list the action was run from, with its filters."""
        url = reverse("admin:payments_payout_changelist")
        filters = request.GET.urlencode()
        return f"{url}?{filters}" if filters else url

    @admin.action(
        description=_("The operator confirmed it paid the selected payouts"),
        permissions=["resolve"],
    )
    def mark_succeeded(self, request, queryset):
        return self._resolve(request, queryset, succeeded=True, action="mark_succeeded")

    @admin.action(
        description=_("The operator confirmed it did NOT pay the selected payouts"),
        permissions=["resolve"],
    )
    def mark_failed(self, request, queryset):
        return self._resolve(request, queryset, succeeded=False, action="mark_failed")
