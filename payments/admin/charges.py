"""Staff views of charges: read-only, with their refunds inline and two actions: asking the
provider where pending charges stand (which may settle them: it needs payments.change_charge),
and giving a late payment back again when the operator refused its refund (it needs
payments.change_refund)."""

from django.contrib import admin, messages
from django.contrib.admin.utils import quote, unquote
from django.db.models import Exists, OuterRef, Q
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core.admin.actions import ActionsByPermission, ask_again
from core.admin.addresses import PublicIdAdmin
from core.admin.columns import merchant_name
from core.admin.display import fieldset_fields, json_block, status_word
from core.errors import ApiError
from core.money import format_amount
from payments import state
from payments.admin.refunds import RefundInline
from payments.models import Charge, ChargeStatus, ExtraPayment, ExtraPaymentStatus
from payments.services import charges, refunds


class LatePaymentFilter(admin.SimpleListFilter):
    """Charges whose payment the operator reported but we could not accept (refunded in full
    with reason late_payment), and charges the provider reports paid more than once (each other
    payment given back once confirmed, or waiting for the operator to confirm it); the
    provider's answers are on the charge."""

    title = _("late payments")
    parameter_name = "late_payment"

    def lookups(self, request, model_admin):
        return [("yes", _("Late payments")), ("no", _("Other charges"))]

    def queryset(self, request, queryset):
        late = Q(late_payment_at__isnull=False) | Exists(
            ExtraPayment.objects.filter(charge=OuterRef("pk"))
        )
        if self.value() == "yes":
            return queryset.filter(late)
        if self.value() == "no":
            return queryset.exclude(late)
        return queryset


class ExtraPaymentInline(admin.TabularInline):
    """The other payments the provider reports for one charge, besides the one that stands,
    with the provider's answers, the refund that gives each back, and, for one the operator has
    not answered for yet, when it is asked again."""

    model = ExtraPayment
    fk_name = "charge"
    extra = 0
    fields = (
        "reference",
        "status",
        "refund_link",
        "answers_display",
        "created_at",
        "check_count",
        "next_check_at",
    )
    readonly_fields = fields
    verbose_name = _("other payment")
    verbose_name_plural = _("Other payments the provider reports (given back once confirmed)")

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description=_("Refund"))
    def refund_link(self, obj):
        if obj.refund_id is None:
            return "—"
        url = reverse("admin:payments_refund_change", args=[quote(obj.refund_id)])
        return format_html("<a href='{}'>{}</a>", url, obj.refund_id)

    @admin.display(description=_("Provider answers (latest last)"))
    def answers_display(self, obj):
        return json_block(obj.answers) if obj.answers else "—"


class MissingOperatorReferenceFilter(admin.SimpleListFilter):
    """Succeeded charges whose operator id we never learnt (an operator's answer without it):
    nothing can refund them through the operator, so staff find the payment there themselves."""

    title = _("operator reference")
    parameter_name = "operator_reference"

    def lookups(self, request, model_admin):
        return [("missing", _("Succeeded without operator reference"))]

    def queryset(self, request, queryset):
        if self.value() == "missing":
            return queryset.filter(status=ChargeStatus.SUCCEEDED, provider_reference="")
        return queryset


def succeeded_without_reference(charge: Charge) -> bool:
    return charge.status == ChargeStatus.SUCCEEDED and not charge.provider_reference


@admin.register(Charge)
class ChargeAdmin(PublicIdAdmin, ActionsByPermission, admin.ModelAdmin):
    """Charges are read, never edited: status changes only through the state machine, and the
    one thing staff may do is ask the provider where a pending charge stands."""

    list_display = (
        "id",
        merchant_name,
        "money",
        "method",
        "phone",
        "status",
        "livemode",
        "created_at",
    )
    list_filter = (
        LatePaymentFilter,
        MissingOperatorReferenceFilter,
        "status",
        "network",
        "payment_method",
        "livemode",
        "merchant",
    )
    search_fields = ("=id", "phone", "description")
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-id")
    show_full_result_count = False
    actions = ["check_status_now", "give_back_again"]
    inlines = [ExtraPaymentInline, RefundInline]
    fieldsets = (
        (
            None,
            {
                "fields": (
                    "id",
                    "merchant",
                    "livemode",
                    "status",
                    "failure_code",
                    "failure_message",
                    "checkout_session",
                )
            },
        ),
        (
            _("Money"),
            {
                "fields": (
                    "money",
                    "amount",
                    "currency",
                    "amount_refunded",
                    "payment_method",
                    "network",
                    "phone",
                )
            },
        ),
        (
            _("Merchant's data"),
            {"fields": ("description", "metadata", "callback_url", "return_url")},
        ),
        (
            _("Provider"),
            {
                "fields": (
                    "provider",
                    "provider_reference",
                    "provider_attempt",
                    "provider_requested_at",
                    "check_count",
                    "next_check_at",
                    "provider_raw_pretty",
                )
            },
        ),
        (
            _("Reconciliation and late payment"),
            {
                "fields": (
                    "payments_taken",
                    "late_payment_at",
                    "reconcile_until",
                    "reconcile_next_at",
                    "reconcile_count",
                )
            },
        ),
        (_("Times"), {"fields": ("created_at", "updated_at", "finalized_at")}),
    )
    readonly_fields = fieldset_fields(fieldsets)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        charge = self.get_object(request, unquote(object_id))  # the admin's views unquote it
        if charge is not None and succeeded_without_reference(charge):
            messages.warning(
                request,
                gettext(
                    "This charge succeeded without the operator's reference: a refund of it "
                    "cannot be sent to the operator. Find the payment at the operator (its "
                    "answers are below) before refunding it."
                ),
            )
        return super().change_view(request, object_id, form_url, extra_context)

    def has_add_permission(self, request):
        return False  # charges are created through the API or the hosted pages

    def has_change_permission(self, request, obj=None):
        return False  # read, never edited: the page has no Save button

    def has_delete_permission(self, request, obj=None):
        return False  # money records are kept

    def has_check_permission(self, request):
        return request.user.has_perm("payments.change_charge")

    def has_give_back_permission(self, request):
        return request.user.has_perm("payments.change_refund")

    @admin.display(description=_("Amount"), ordering="amount")
    def money(self, obj):
        return format_amount(obj.amount, obj.currency)

    @admin.display(description=_("Method"), ordering="network")
    def method(self, obj):
        """The network of a mobile money charge, else the payment method (card)."""
        return obj.get_network_display() or obj.get_payment_method_display()

    @admin.display(description=_("Payments the provider took"))
    def payments_taken(self, obj):
        """Every payment of the charge the provider reports: the one that stands, then each
        other one with what became of it."""
        lines = []
        if obj.provider_reference:
            kept = (
                gettext("given back as the late payment")
                if obj.late_payment_at is not None
                else gettext("kept: the charge's payment")
                if obj.status == ChargeStatus.SUCCEEDED
                else gettext("the charge's last answer")
            )
            lines.append(format_html("<li><code>{}</code>: {}</li>", obj.provider_reference, kept))
        for extra in obj.extra_payments.all():
            word = extra.get_status_display()
            lines.append(format_html("<li><code>{}</code>: {}</li>", extra.reference, word))
        if not lines:
            return "—"
        return format_html(
            "<ul class='flush'>{}</ul>", format_html_join("", "{}", ((line,) for line in lines))
        )

    @admin.display(description=_("Provider answers (latest last)"))
    def provider_raw_pretty(self, obj):
        if not obj.provider_raw:
            return "—"
        return json_block(obj.provider_raw)

    @admin.action(description=_("Check status with the provider now"), permissions=["check"])
    def check_status_now(self, request, queryset):
        selected = list(queryset.select_related(None).only("id", "status"))
        open_ids = [charge.id for charge in selected if charge.status not in state.CHARGE_FINAL]
        reported = list(
            ExtraPayment.objects.filter(
                charge_id__in=[charge.id for charge in selected],
                status=ExtraPaymentStatus.REPORTED,
            ).values_list("charge_id", "reference")
        )
        asked = {charge_id for charge_id, _ in reported}
        for charge_id, reference in reported:
            # Another payment the operator reported that no answer has confirmed yet.
            checked = charges.charge_extra_payment_check(charge_id=charge_id, reference=reference)
            self.message_user(
                request,
                gettext("%(id)s: other payment %(reference)s is %(status)s.")
                % {"id": charge_id, "reference": reference, "status": status_word(checked)},
                messages.INFO,
            )
        skipped = len([c for c in selected if c.status in state.CHARGE_FINAL and c.id not in asked])
        settled, still_pending = [], []
        for refreshed in ask_again(
            self, request, open_ids, refresh=lambda pk: charges.charge_refresh(charge_id=pk)
        ):
            if refreshed.status == ChargeStatus.PENDING:
                still_pending.append(refreshed.id)
            else:
                settled.append(f"{refreshed.id} → {status_word(refreshed)}")
        if settled:
            self.message_user(
                request,
                gettext("Settled: %(charges)s") % {"charges": ", ".join(settled)},
                messages.SUCCESS,
            )
        if still_pending:
            self.message_user(
                request,
                gettext("Still pending: %(charges)s") % {"charges": ", ".join(still_pending)},
                messages.INFO,
            )
        if skipped:
            self.message_user(
                request,
                ngettext(
                    "%(count)d charge already final, not checked.",
                    "%(count)d charges already final, not checked.",
                    skipped,
                )
                % {"count": skipped},
                messages.WARNING,
            )

    @admin.action(
        description=_("Give late payments back again (their refund failed)"),
        permissions=["give_back"],
    )
    def give_back_again(self, request, queryset):
        """A late payment's refund that the operator refused leaves the customer's money in the
        merchant's balance: a new full refund, from that balance, sent to the operator."""
        for charge in queryset.select_related(None).only("id", "late_payment_at"):
            self.message_user(request, *self._given_back(charge))

    def _given_back(self, charge) -> tuple[str, int]:
        """What giving `charge` back again did, as a message and its level."""
        if charge.late_payment_at is None and not charge.extra_payments.exists():
            message = gettext("%(id)s is no late payment: nothing to give back.")
            return message % {"id": charge.id}, messages.WARNING
        try:
            refund = refunds.late_payment_give_back_again(charge_id=charge.id)
        except ApiError as exc:
            message = gettext("%(id)s not given back: %(message)s")
            return message % {"id": charge.id, "message": exc.localized()}, messages.ERROR
        if refund is None:
            message = gettext("%(id)s: its refund succeeded or is under way, nothing to do.")
            return message % {"id": charge.id}, messages.INFO
        message = gettext("%(id)s given back again: refund %(refund)s.")
        return message % {"id": charge.id, "refund": refund.id}, messages.SUCCESS
