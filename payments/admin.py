"""Staff views of merchants and API keys (charges and refunds are added beside them)."""

import json

from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.html import format_html

from payments import services, state
from payments.admin_refunds import RefundInline  # also registers RefundAdmin
from payments.errors import ApiError
from payments.models import ApiKey, Charge, ChargeStatus, Merchant, Mode
from payments.money import format_amount
from webhooks import services as webhook_services
from webhooks.models import WebhookEndpoint


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    extra = 0
    can_delete = False
    fields = ("prefix", "mode", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


class WebhookEndpointInline(admin.TabularInline):
    """Each mode's default webhook URL (editable) and its signing secret (never shown whole)."""

    model = WebhookEndpoint
    extra = 0
    max_num = 2
    can_delete = False
    fields = ("livemode", "url", "masked_secret", "previous_secret_expires_at")
    readonly_fields = ("livemode", "masked_secret", "previous_secret_expires_at")
    verbose_name = "webhook endpoint"

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="Signing secret")
    def masked_secret(self, obj):
        return format_html("<code>{}…</code>", obj.secret[:10]) if obj.secret else "—"


@admin.register(Merchant)
class MerchantAdmin(admin.ModelAdmin):
    list_display = ("name", "id", "live_approved", "card_rail_enabled", "created_at")
    list_filter = ("live_approved", "card_rail_enabled")
    list_editable = ("live_approved", "card_rail_enabled")
    search_fields = ("id", "name", "webhook_endpoints__url")
    readonly_fields = ("id", "created_at")
    fields = ("id", "name", "live_approved", "card_rail_enabled", "created_at")
    inlines = [WebhookEndpointInline, ApiKeyInline]
    actions = [
        "issue_test_key",
        "issue_live_key",
        "rotate_test_webhook_secret",
        "rotate_live_webhook_secret",
    ]

    def _issue(self, request, queryset, mode):
        """The new keys are shown once, on the response page itself: never in a message (Django
        keeps messages in a cookie) or a log line. The page is not cached."""
        issued = [
            (merchant, services.api_key_create(merchant=merchant, mode=mode).plaintext)
            for merchant in queryset
        ]
        response = TemplateResponse(
            request,
            "admin/payments/issued_keys.html",
            {
                **self.admin_site.each_context(request),
                "title": f"New {mode} secret keys",
                "mode": mode,
                "issued": issued,
                "back_url": reverse("admin:payments_merchant_changelist"),
            },
        )
        add_never_cache_headers(response)
        return response

    @admin.action(description="Issue a new test secret key")
    def issue_test_key(self, request, queryset):
        return self._issue(request, queryset, Mode.TEST)

    @admin.action(description="Issue a new live secret key")
    def issue_live_key(self, request, queryset):
        return self._issue(request, queryset, Mode.LIVE)

    def _rotate(self, request, queryset, livemode: bool):
        mode = "live" if livemode else "test"
        for merchant in queryset:
            webhook_services.endpoint_rotate_secret(merchant=merchant, livemode=livemode)
            self.message_user(
                request,
                f"New {mode} webhook secret for {merchant.name}: the merchant reads it with "
                f"GET /v1/webhook_endpoint (a {mode} key); the previous one signs for 24 h more.",
                messages.WARNING,
            )

    @admin.action(description="Rotate the test webhook signing secret")
    def rotate_test_webhook_secret(self, request, queryset):
        self._rotate(request, queryset, livemode=False)

    @admin.action(description="Rotate the live webhook signing secret")
    def rotate_live_webhook_secret(self, request, queryset):
        self._rotate(request, queryset, livemode=True)


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ("prefix", "merchant", "mode", "created_at", "last_used_at", "revoked_at")
    list_filter = ("mode", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("prefix", "merchant__id", "merchant__name")
    readonly_fields = ("merchant", "mode", "prefix", "created_at", "last_used_at", "revoked_at")
    exclude = ("key_hash",)
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False  # keys are issued from the merchant page, where the plaintext is shown once

    @admin.action(description="Revoke selected keys (takes effect at once)")
    def revoke(self, request, queryset):
        for key in queryset:
            services.api_key_revoke(api_key=key)
        self.message_user(request, f"Revoked {queryset.count()} key(s).", messages.SUCCESS)


class LatePaymentFilter(admin.SimpleListFilter):
    """Charges whose payment the operator reported but we could not accept:
    refunded in full with reason late_payment; the operator's answers are on the charge."""

    title = "late payments"
    parameter_name = "late_payment"

    def lookups(self, request, model_admin):
        return [("yes", "Late payments"), ("no", "Other charges")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(late_payment_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(late_payment_at__isnull=True)
        return queryset


@admin.register(Charge)
class ChargeAdmin(admin.ModelAdmin):
    """Charges are read, never edited: status changes only through the state machine, and the
    one thing staff may do is ask the provider where a pending charge stands."""

    list_display = (
        "id",
        "merchant",
        "money",
        "payment_method",
        "network",
        "phone",
        "status",
        "livemode",
        "created_at",
    )
    list_filter = (LatePaymentFilter, "status", "network", "payment_method", "livemode", "merchant")
    search_fields = ("=id", "phone", "description")
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"
    ordering = ("-created_at", "-id")
    show_full_result_count = False
    actions = ["check_status_now"]
    inlines = [RefundInline]
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
            "Money",
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
        ("Merchant's data", {"fields": ("description", "metadata", "callback_url", "return_url")}),
        (
            "Provider",
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
            "Reconciliation and late payment",
            {
                "fields": (
                    "late_payment_at",
                    "reconcile_until",
                    "reconcile_next_at",
                    "reconcile_count",
                )
            },
        ),
        ("Times", {"fields": ("created_at", "updated_at", "finalized_at")}),
    )
    readonly_fields = [name for _, group in fieldsets for name in group["fields"]]

    def has_add_permission(self, request):
        return False  # charges are created through the API or the hosted pages

    def has_delete_permission(self, request, obj=None):
        return False  # money records are kept

    @admin.display(description="Amount", ordering="amount")
    def money(self, obj):
        return format_amount(obj.amount, obj.currency)

    @admin.display(description="Provider answers (latest last)")
    def provider_raw_pretty(self, obj):
        if not obj.provider_raw:
            return "—"
        return format_html(
            "<pre style='white-space:pre-wrap;margin:0'>{}</pre>",
            json.dumps(obj.provider_raw, indent=2, ensure_ascii=False),
        )

    @admin.action(description="Check status with the provider now")
    def check_status_now(self, request, queryset):
        settled, still_pending, skipped = [], [], 0
        for charge in queryset.select_related(None).only("id", "status"):
            if charge.status in state.CHARGE_FINAL:
                skipped += 1
                continue
            try:
                refreshed = services.charge_refresh(charge_id=charge.id)
            except ApiError as exc:
                self.message_user(request, f"{charge.id}: {exc.message}", messages.ERROR)
                continue
            if refreshed.status == ChargeStatus.PENDING:
                still_pending.append(refreshed.id)
            else:
                settled.append(f"{refreshed.id} → {refreshed.status}")
        if settled:
            self.message_user(request, "Settled: " + ", ".join(settled), messages.SUCCESS)
        if still_pending:
            self.message_user(request, "Still pending: " + ", ".join(still_pending), messages.INFO)
        if skipped:
            self.message_user(
                request, f"{skipped} charge(s) already final, not checked.", messages.WARNING
            )
