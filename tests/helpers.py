"""Helpers shared by the test modules (builders live in tests/factories.py)."""

from django.contrib.admin.utils import quote
from django.urls import reverse


def admin_url(obj, action: str = "change") -> str:
    """The admin page of `obj` as the admin itself links to it: ids are quoted (`_` → `_5F`),
    so an id whose random part starts like a quoted character is never read back wrongly."""
    meta = obj._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{action}", args=[quote(obj.pk)])
