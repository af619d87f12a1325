"""The staff sign-in, guarded by django-axes (settings: THROTTLE_ADMIN_LOGIN): after N wrong
passwords for one username from one client address, that pair gets a plain "too many attempts"
page (429, Retry-After) until the cool-off ends, whatever password it sends; another address, or
another username, is not affected.

axes checks the count before the password and records a failure after it, so sign-ins sent at
once would all pass the check before any failure was recorded. Here the sign-ins of one username
from one address are taken one at a time, in a transaction holding a lock on that pair (a
PostgreSQL advisory lock; SQLite's write lock takes every sign-in in turn), until the failure is
recorded: the N+1th finds the pair locked and its password is never checked.
"""

import hashlib

from axes.helpers import get_client_ip_address, get_client_username, get_cool_off
from django.conf import settings
from django.contrib import admin
from django.db import connection, transaction
from django.shortcuts import render


def admin_login(request, extra_context=None):
    if request.method != "POST" or not settings.AXES_ENABLED:
        return admin.site.login(request, extra_context)
    with transaction.atomic():
        one_sign_in_at_a_time(
            get_client_username(request) or "", get_client_ip_address(request) or ""
        )
        return admin.site.login(request, extra_context)


def one_sign_in_at_a_time(username: str, address: str, *, form: str = "admin-login") -> None:
    """Wait for any other sign-in of `username` from `address` on the same sign-in `form` to
    finish (until the end of this transaction). The merchant dashboard's sign-in uses it too."""
    if connection.vendor != "postgresql":
        return  # SQLite: the transaction began with the database's write lock (IMMEDIATE)
    digest = hashlib.blake2b(f"{form}\0{username}\0{address}".encode(), digest_size=8)
    lock = int.from_bytes(digest.digest(), "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock])


def locked_out(request, original_response=None, credentials=None):
    """axes' answer to a locked-out sign-in (AXES_LOCKOUT_CALLABLE): the pause page, 429."""
    cool_off = get_cool_off(request)
    wait = int(cool_off.total_seconds()) if cool_off else 3600
    response = render(
        request,
        "admin/login_throttled.html",
        {**admin.site.each_context(request), "wait_minutes": max(1, round(wait / 60))},
        status=429,
    )
    response["Retry-After"] = str(wait)
    return response
