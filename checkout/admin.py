"""Staff view of checkout sessions and the charges made on them (read-only)."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from checkout.models import CheckoutSession
from core.admin.actions import ActionsByPermission
from core.admin.addresses import PublicIdAdmin
from core.admin.columns import merchant_name
from core.money import format_amount
from payments.models import Charge


class SessionChargeInline(admin.TabularInline):
    model = Charge
    fk_name = "checkout_session"
    extra = 0
    can_delete = False
    show_change_link = True
    fields = (
        "id",
        "payment_method",
        "network",
        "phone",
        "status",
        "failure_code",
        "created_at",
        "finalized_at",
    )
    readonly_fields = fields
    ordering = ("-created_at",)

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(CheckoutSession)
class CheckoutSessionAdmin(PublicIdAdmin, ActionsByPermission, admin.ModelAdmin):
    list_display = (
        "id",
        merchant_name,
        "money",
        "status",
        "livemode",
        "created_at",
        "expires_at",
    )
    list_filter = ("status", "livemode", "currency")
    search_fields = ("id",)
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"
    inlines = [SessionChargeInline]

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields]

    @admin.display(description=_("Amount"), ordering="amount")
    def money(self, obj):
        return format_amount(obj.amount, obj.currency)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False  # sessions change only through their state machine

    def has_delete_permission(self, request, obj=None):
        return False
