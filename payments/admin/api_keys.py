"""Staff views of API keys: the list (revocation) and the inline on the merchant's page. Keys are
issued from the merchant's page, where the plaintext is shown once."""

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from core.admin.actions import ActionsByPermission
from core.admin.columns import merchant_name
from payments.models import ApiKey
from payments.services import accounts


class ApiKeyInline(admin.TabularInline):
    model = ApiKey
    extra = 0
    can_delete = False
    fields = ("prefix", "name", "mode", "created_at", "last_used_at", "revoked_at")
    readonly_fields = fields
    show_change_link = True

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(ApiKey)
class ApiKeyAdmin(ActionsByPermission, admin.ModelAdmin):
    list_display = (
        "prefix",
        "name",
        merchant_name,
        "mode",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = ("mode", ("revoked_at", admin.EmptyFieldListFilter))
    search_fields = ("prefix", "name", "merchant__id", "merchant__name")
    readonly_fields = (
        "merchant",
        "mode",
        "name",
        "prefix",
        "created_at",
        "last_used_at",
        "revoked_at",
    )
    exclude = ("key_hash",)
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False  # issued from the merchant page (payments.issue_apikey), shown there once

    def has_change_permission(self, request, obj=None):
        return False  # nothing of a key is edited; revoking is the action below

    def has_revoke_permission(self, request):
        return request.user.has_perm("payments.change_apikey")

    @admin.action(
        description=_("Revoke selected keys (takes effect at once)"), permissions=["revoke"]
    )
    def revoke(self, request, queryset):
        revoked = 0
        for key in queryset:
            accounts.api_key_revoke(api_key=key)
            revoked += 1
        self.message_user(
            request,
            ngettext("Revoked %(count)d key.", "Revoked %(count)d keys.", revoked)
            % {"count": revoked},
            messages.SUCCESS,
        )
