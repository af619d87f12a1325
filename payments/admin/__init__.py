"""Staff views, one module per object; importing the package registers them all. The staff
login (login.py) is routed in config/urls.py."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _

from payments.admin import (
    api_keys,
    charges,
    ledger,
    merchants,
    networks,
    payouts,
    reconciliation,
    refunds,
    settlements,
)

# The lists need the whole width of a 1280 px screen; the index and the breadcrumbs lead around.
admin.site.enable_nav_sidebar = False
# The service's name on every staff page and browser tab, not the framework's.
admin.site.site_header = _("Payments administration")
admin.site.site_title = _("Payments administration")

__all__ = [
    "api_keys",
    "charges",
    "ledger",
    "merchants",
    "networks",
    "payouts",
    "reconciliation",
    "refunds",
    "settlements",
]
