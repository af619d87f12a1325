"""Columns the staff lists share, kept narrow so that a list fits a 1280 px screen."""

from django.contrib import admin
from django.utils.translation import gettext_lazy as _


@admin.display(description=_("Merchant"), ordering="merchant__name")
def merchant_name(obj) -> str:
    """The merchant's name alone (its id is on the object's page)."""
    return obj.merchant.name
