"""Staff view of text messages and receipts by SMS (read-only: they change through their worker
and the vendors' reports), and of merchants' text message settings, where staff set the sender
name a vendor registered for a merchant (whether receipts go is the merchant's choice, in the
dashboard, audited there)."""

from django.contrib import admin

from core.admin.addresses import PublicIdAdmin
from core.admin.columns import merchant_name
from core.admin.readonly import ReadOnlyMixin
from messaging.models import Message, MessagingSettings, SmsReceipt


@admin.register(Message)
class MessageAdmin(PublicIdAdmin, ReadOnlyMixin, admin.ModelAdmin):
    list_display = (
        "id",
        merchant_name,
        "to",
        "kind",
        "status",
        "provider",
        "attempts",
        "livemode",
        "created_at",
        "error",
    )
    list_filter = ("status", "kind", "livemode", "provider")
    search_fields = ("=id", "=to", "=vendor_id")
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]


@admin.register(SmsReceipt)
class SmsReceiptAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("session", "message", "language", "created_at")
    search_fields = ("=session__id", "=message__id")
    date_hierarchy = "created_at"
    exclude = ("token",)  # whoever has it reads the receipt: not shown to staff either

    def get_readonly_fields(self, request, obj=None):
        return ["session", "message", "language", "created_at"]


@admin.register(MessagingSettings)
class MessagingSettingsAdmin(admin.ModelAdmin):
    list_display = (merchant_name, "sms_receipts", "sender_name")
    list_select_related = ("merchant",)
    search_fields = ("=merchant__id", "merchant__name")
    readonly_fields = ("sms_receipts",)
    autocomplete_fields = ("merchant",)

    def has_delete_permission(self, request, obj=None) -> bool:
        # Deleting the row would silently turn the merchant's choice back to the default.
        return False
