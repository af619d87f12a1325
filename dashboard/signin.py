"""The dashboard's sign-in under django-axes (config/settings.py, THROTTLE_ADMIN_LOGIN): allauth
authenticates with the e-mail address, so axes counts failures per (address typed, client
address) as it does for the staff sign-in's username; a locked-out pair gets a page of ours."""

from axes.helpers import get_cool_off
from django.shortcuts import render

from payments.admin.login import locked_out as admin_locked_out


def axes_username(request, credentials=None) -> str:
    """The account a sign-in is for: the staff form's `username`, allauth's `email` credential
    (or its form's `login` field), lower-cased so that case changes do not reset the count."""
    source = credentials or {}
    if not source and request is not None:
        source = getattr(request, "data", None) or request.POST
    if source.get("username"):
        return str(source["username"])
    return str(source.get("email") or source.get("login") or "").strip().lower()


def locked_out(request, original_response=None, credentials=None):
    if request.path.startswith("/admin/"):
        return admin_locked_out(request, original_response, credentials)
    cool_off = get_cool_off(request)
    wait = int(cool_off.total_seconds()) if cool_off else 3600
    response = render(
        request,
        "account/login_throttled.html",
        {"wait_minutes": max(1, round(wait / 60))},
        status=429,
    )
    response["Retry-After"] = str(wait)
    return response
