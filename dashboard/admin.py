"""The staff site's view of the dashboard's accounts: allauth's e-mail address admin, whose
"mark as verified" action needs the permission to change addresses (seeing is not changing)."""

from allauth.account.admin import EmailAddressAdmin
from allauth.account.models import EmailAddress
from django.contrib import admin
from django.utils.translation import gettext_lazy as _


class StaffEmailAddressAdmin(EmailAddressAdmin):
    @admin.action(
        description=_("Mark selected email addresses as verified"), permissions=["change"]
    )
    def make_verified(self, request, queryset) -> None:
        super().make_verified(request, queryset)


admin.site.unregister(EmailAddress)
admin.site.register(EmailAddress, StaffEmailAddressAdmin)
