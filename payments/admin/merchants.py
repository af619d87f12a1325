"""Staff views of merchants: approval for live mode and the card rail, the support contact their
customers see on the payment pages, their API keys (issued here, shown once) and their webhook
endpoints (URL per mode, secret rotation)."""

from django.contrib import admin, messages
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.cache import add_never_cache_headers
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from payments.admin.addresses import PublicIdAdmin
from payments.admin.api_keys import ApiKeyInline
from payments.models import Merchant, Mode
from payments.services import accounts
from webhooks import services as webhook_services
from webhooks.models import WebhookEndpoint


class WebhookEndpointInline(admin.TabularInline):
    """Each mode's default webhook URL (editable) and its signing secret (never shown whole)."""

    model = WebhookEndpoint
    extra = 0
    max_num = 2
    can_delete = False
    fields = ("livemode", "url", "masked_secret", "previous_secret_expires_at")
    readonly_fields = ("livemode", "masked_secret", "previous_secret_expires_at")

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description=_("Signing secret"))
    def masked_secret(self, obj):
        return format_html("<code>{}…</code>", obj.secret[:10]) if obj.secret else "—"


@admin.register(Merchant)
class MerchantAdmin(PublicIdAdmin, admin.ModelAdmin):
    list_display = ("name", "id", "live_approved", "card_rail_enabled", "created_at")
    list_filter = ("live_approved", "card_rail_enabled")
    list_editable = ("live_approved", "card_rail_enabled")
    search_fields = ("id", "name", "webhook_endpoints__url")
    readonly_fields = ("id", "created_at")
    fieldsets = (
        (None, {"fields": ("id", "name", "live_approved", "card_rail_enabled", "created_at")}),
        (
            _("Customer support"),
            {
                "fields": ("support_email", "support_phone"),
                "description": _("Shown to the merchant's customers on every payment page."),
            },
        ),
    )
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
            (merchant, accounts.api_key_create(merchant=merchant, mode=mode).plaintext)
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

    @admin.action(description=_("Issue a new test secret key"))
    def issue_test_key(self, request, queryset):
        return self._issue(request, queryset, Mode.TEST)

    @admin.action(description=_("Issue a new live secret key"))
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

    @admin.action(description=_("Rotate the test webhook signing secret"))
    def rotate_test_webhook_secret(self, request, queryset):
        self._rotate(request, queryset, livemode=False)

    @admin.action(description=_("Rotate the live webhook signing secret"))
    def rotate_live_webhook_secret(self, request, queryset):
        self._rotate(request, queryset, livemode=True)
