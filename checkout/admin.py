"""Staff view of checkout sessions and the charges made on them (read-only)."""

from django.contrib import admin

from checkout.models import CheckoutSession
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
class CheckoutSessionAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "merchant",
        "amount",
        "currency",
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

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
