"""Staff view of payment links and of the receipts mailed to customers (read-only: links change
through the API, receipts through their worker)."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from core.admin.addresses import PublicIdAdmin
from core.admin.columns import merchant_name
from core.money import format_amount
from links.models import PaymentLink, Receipt


class ReadOnlyAdmin(admin.ModelAdmin):
    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(PaymentLink)
class PaymentLinkAdmin(PublicIdAdmin, ReadOnlyAdmin):
    list_display = (
        "id",
        merchant_name,
        "description",
        "money",
        "active",
        "payments_count",
        "max_payments",
        "livemode",
        "created_at",
    )
    list_filter = ("active", "livemode", "currency", "custom_amount")
    search_fields = ("=id",)
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"

    @admin.display(description=_("Amount"), ordering="amount")
    def money(self, obj):
        return format_amount(obj.amount, obj.currency) if obj.amount is not None else "—"


@admin.register(Receipt)
class ReceiptAdmin(ReadOnlyAdmin):
    list_display = ("session", "email", "language", "sent_at", "attempts", "last_error")
    list_filter = (("sent_at", admin.EmptyFieldListFilter), "language")
    search_fields = ("=session__id", "email")
    date_hierarchy = "created_at"
