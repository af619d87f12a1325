"""Staff views of events, their deliveries and every attempt; "Resend" makes a new delivery, so it
needs webhooks.add_delivery."""

from django.contrib import admin, messages
from django.utils.html import format_html
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.errors import InvalidRequest
from payments.admin.actions import ActionsByPermission
from payments.admin.addresses import PublicIdAdmin
from payments.admin.columns import merchant_name
from webhooks import services
from webhooks.errors import ResendsLimited
from webhooks.models import Delivery, DeliveryAttempt, Event


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
        return format_html("<pre style='white-space:pre-wrap'>{}</pre>", obj.response_body)


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
