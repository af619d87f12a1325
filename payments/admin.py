"""Staff views of merchants and API keys (charges and refunds are added beside them)."""

from django.contrib import admin, messages
from django.utils.html import format_html

from payments import services
from payments.admin_refunds import RefundInline  # noqa: F401  (registers RefundAdmin)
from payments.models import ApiKey, Merchant, Mode


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    extra = 0
    can_delete = False
    fields = ("prefix", "mode", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Merchant)
class MerchantAdmin(admin.ModelAdmin):
    list_display = ("name", "id", "live_approved", "card_rail_enabled", "webhook_url", "created_at")
    list_filter = ("live_approved", "card_rail_enabled")
    list_editable = ("live_approved", "card_rail_enabled")
    search_fields = ("id", "name", "webhook_url")
    readonly_fields = ("id", "created_at", "masked_webhook_secret")
    fields = (
        "id",
        "name",
        "live_approved",
        "card_rail_enabled",
        "webhook_url",
        "masked_webhook_secret",
        "created_at",
    )
    inlines = [ApiKeyInline]
    actions = ["issue_test_key", "issue_live_key", "rotate_webhook_secret"]

    @admin.display(description="Webhook secret")
    def masked_webhook_secret(self, obj):
        if not obj.webhook_secret:
            return "—"
        return format_html("<code>{}…</code>", obj.webhook_secret[:10])

    def _issue(self, request, queryset, mode):
        for merchant in queryset:
            issued = services.api_key_create(merchant=merchant, mode=mode)
            self.message_user(
                request,
                format_html(
                    "New {} key for {}: <code>{}</code> — copy it now, it is shown only once.",
                    mode,
                    merchant.name,
                    issued.plaintext,
                ),
                messages.WARNING,
            )

    @admin.action(description="Issue a new test secret key")
    def issue_test_key(self, request, queryset):
        self._issue(request, queryset, Mode.TEST)

    @admin.action(description="Issue a new live secret key")
    def issue_live_key(self, request, queryset):
        self._issue(request, queryset, Mode.LIVE)

    @admin.action(description="Rotate the webhook signing secret")
    def rotate_webhook_secret(self, request, queryset):
        for merchant in queryset:
            services.merchant_rotate_webhook_secret(merchant=merchant)
            self.message_user(
                request,
                format_html(
                    "New webhook secret for {}: <code>{}</code>",
                    merchant.name,
                    merchant.webhook_secret,
                ),
                messages.WARNING,
            )


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
