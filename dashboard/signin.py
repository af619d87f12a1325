"""The dashboard's sign-in under django-axes (config/settings.py, THROTTLE_ADMIN_LOGIN): allauth
authenticates with the e-mail address, so axes counts failures per (address typed, client
address) as it does for the staff sign-in's username; a locked-out pair gets a page of ours."""

from allauth.account import views as allauth_views
from axes.helpers import get_client_ip_address, get_cool_off
from django.conf import settings
from django.db import transaction
from django.shortcuts import render

from payments.admin.login import locked_out as admin_locked_out
from payments.admin.login import one_sign_in_at_a_time


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


def login(request, *args, **kwargs):
    """allauth's sign-in (`/accounts/login/`), its attempts for one address typed from one client
    address taken one at a time as the staff's are (payments/admin/login.py), so that passwords
    sent at once never outnumber axes' limit."""
    if request.method != "POST" or not settings.AXES_ENABLED:
        return allauth_views.login(request, *args, **kwargs)
    with transaction.atomic():
        one_sign_in_at_a_time(
            axes_username(request), get_client_ip_address(request) or "", form="dashboard-login"
        )
        return allauth_views.login(request, *args, **kwargs)
