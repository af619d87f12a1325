"""Staff view of payout batches and their rows (read-only: batches change through their
services only, from the API or the merchant's dashboard)."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from batches.models import PayoutBatch, PayoutBatchItem
from batches.services import batch_counts
from core.admin.actions import ActionsByPermission
from core.admin.addresses import PublicIdAdmin
from core.admin.columns import merchant_name
from core.admin.readonly import ReadOnlyMixin


class PayoutBatchItemInline(ReadOnlyMixin, admin.TabularInline):
    model = PayoutBatchItem
    extra = 0
    fields = (
        "row",
        "phone",
        "amount",
        "currency",
        "network",
        "reference",
        "status",
        "payout",
        "failure_code",
    )
    readonly_fields = fields
    ordering = ("row",)


@admin.register(PayoutBatch)
class PayoutBatchAdmin(PublicIdAdmin, ActionsByPermission, ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", merchant_name, "status", "row_count", "livemode", "created_at")
    list_filter = ("status", "livemode", "source")
    search_fields = ("=id",)
    list_select_related = ("merchant",)
    date_hierarchy = "created_at"
    inlines = [PayoutBatchItemInline]

    def get_readonly_fields(self, request, obj=None):
        return [field.name for field in self.model._meta.fields] + ["counts"]

    @admin.display(description=_("rows by status"))
    def counts(self, obj):
        return ", ".join(
            f"{name}: {count}" for name, count in batch_counts(batch_id=obj.id).items()
        )
