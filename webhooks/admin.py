"""Staff views of events, their deliveries and every attempt; "Resend" makes a new delivery, so it
needs webhooks.add_delivery."""

from django.contrib import admin, messages
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.admin.actions import ActionsByPermission
from core.admin.addresses import PublicIdAdmin
from core.admin.columns import merchant_name
from core.errors import InvalidRequest
from payments.models import Merchant
from webhooks import services
from webhooks.errors import ResendsLimited
from webhooks.models import Delivery, DeliveryAttempt, Event, WebhookEndpoint

# payments/'s page of a merchant, as payments registered it (its admin is loaded first: it comes
# first in INSTALLED_APPS); webhooks builds on it without importing payments' staff views.
MerchantAdmin = type(admin.site.get_model_admin(Merchant))


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


class DeliveryInline(ReadOnlyInline):
    model = Delivery
    fields = ("id", "url", "status", "attempts", "next_attempt_at", "delivered_at", "last_error")
    readonly_fields = fields


class AttemptInline(ReadOnlyInline):
    model = DeliveryAttempt
    fk_name = "event"
    fields = ("attempted_at", "delivery", "url", "status_code", "duration_ms", "error", "answer")
    readonly_fields = fields

    @admin.display(description=_("Answer (first 1 KB)"))
    def answer(self, obj):
        return format_html("<pre class='wrapped'>{}</pre>", obj.response_body)


@admin.register(Event)
class EventAdmin(PublicIdAdmin, ActionsByPermission, admin.ModelAdmin):
    list_display = ("id", "type", merchant_name, "livemode", "delivery_status", "created_at")
    list_filter = ("type", "deliveries__status", "livemode")
    search_fields = ("=id",)
    list_select_related = ("merchant",)
    readonly_fields = (
        "id",
        "merchant",
        "livemode",
        "type",
        "destination_url",
        "created_at",
        "data",
    )
    fields = readonly_fields
    inlines = [DeliveryInline, AttemptInline]
    actions = ["resend"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # an event is what happened: read, never edited

    def has_delete_permission(self, request, obj=None):
        return False

    def has_resend_permission(self, request):
        return request.user.has_perm("webhooks.add_delivery")

    def get_queryset(self, request):
        return super().get_queryset(request).prefetch_related("deliveries")

    @admin.display(description=_("Delivery"))
    def delivery_status(self, obj):
        deliveries = list(obj.deliveries.all())
        return deliveries[0].get_status_display() if deliveries else _("not sent (no URL)")

    @admin.action(
        description=_("Resend (new delivery to the current destination)"), permissions=["resend"]
    )
    def resend(self, request, queryset):
        for event in queryset.select_related("merchant"):
            try:
                delivery = services.event_resend(event=event)
            except ResendsLimited as exc:
                self.message_user(
                    request,
                    gettext("Event %(event)s: not resent. %(reason)s")
                    % {"event": event.id, "reason": exc.localized()},
                    messages.ERROR,
                )
                continue
            except InvalidRequest:
                self.message_user(
                    request,
                    gettext("Event %(event)s: the merchant has no webhook URL.")
                    % {"event": event.id},
                    messages.ERROR,
                )
                continue
            self.message_user(
                request,
                gettext("Event %(event)s: resending to %(url)s.")
                % {"event": event.id, "url": delivery.url},
                messages.SUCCESS,
            )


@admin.register(Delivery)
class DeliveryAdmin(ActionsByPermission, admin.ModelAdmin):
    list_display = ("id", "event", "url", "status", "attempts", "next_attempt_at", "created_at")
    list_filter = ("status", "event__livemode")
    search_fields = ("=event__id", "url")
    readonly_fields = (
        "event", "url", "status", "attempts", "next_attempt_at", "locked_until",
        "last_error", "created_at", "updated_at", "delivered_at",
    )  # fmt: skip
    fields = readonly_fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False


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


class MerchantWithEndpointsAdmin(MerchantAdmin):
    """payments/'s merchant page, with each mode's webhook endpoint and the rotation of its
    signing secret: webhooks/ adds what it owns to the page of a merchant it does not own."""

    search_fields = (*MerchantAdmin.search_fields, "webhook_endpoints__url")
    inlines = [WebhookEndpointInline, *MerchantAdmin.inlines]
    actions = [*MerchantAdmin.actions, "rotate_test_webhook_secret", "rotate_live_webhook_secret"]

    def has_rotate_secret_permission(self, request):
        return request.user.has_perm("webhooks.change_webhookendpoint")

    def _rotate(self, request, queryset, livemode: bool):
        said = (
            gettext(
                "New live webhook secret for %(merchant)s: the merchant reads it with "
                "GET /v1/webhook_endpoint (a live key); the previous one signs for 24 h more."
            )
            if livemode
            else gettext(
                "New test webhook secret for %(merchant)s: the merchant reads it with "
                "GET /v1/webhook_endpoint (a test key); the previous one signs for 24 h more."
            )
        )
        for merchant in queryset:
            services.endpoint_rotate_secret(merchant=merchant, livemode=livemode)
            self.message_user(request, said % {"merchant": merchant.name}, messages.WARNING)

    @admin.action(
        description=_("Rotate the test webhook signing secret"), permissions=["rotate_secret"]
    )
    def rotate_test_webhook_secret(self, request, queryset):
        self._rotate(request, queryset, livemode=False)

    @admin.action(
        description=_("Rotate the live webhook signing secret"), permissions=["rotate_secret"]
    )
    def rotate_live_webhook_secret(self, request, queryset):
        self._rotate(request, queryset, livemode=True)


admin.site.unregister(Merchant)
admin.site.register(Merchant, MerchantWithEndpointsAdmin)
