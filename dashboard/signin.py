"""The sign-in (`/accounts/login/`, allauth's, for merchants' members and staff alike) under
django-axes (config/settings/security.py: THROTTLE_ADMIN_LOGIN, THROTTLE_STAFF_SIGN_IN). allauth
authenticates with the e-mail address, so axes counts failures per address typed: from one client
address for a member (per account and address), from every address together for a staff member
(per account). A locked-out sign-in gets a page of ours saying that a password reset by e-mail
lifts the lock, which `lift_lock` does (docs/operations/security.md#sign-in-lockouts).

axes checks the count before the password and records a failure after it, so sign-ins sent at
once would all pass the check before any failure was recorded. Here the sign-ins of one account
are taken one at a time, in a transaction holding a lock on it (a PostgreSQL advisory lock;
SQLite's write lock takes every sign-in in turn), until the failure is recorded: the one past the
limit finds the account locked and its password is never checked.
"""

import hashlib
from datetime import timedelta

from allauth.account import views as allauth_views
from allauth.account.models import EmailAddress
from axes.helpers import get_cool_off
from axes.utils import reset as axes_reset
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.shortcuts import render

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def rate(value: str) -> tuple[int, timedelta]:
    """ "N/period" (s, m, h, d) as (N, the period)."""
    count, _, period = value.partition("/")
    return int(count), timedelta(seconds=PERIODS[period.strip()[:1]])


def axes_username(request, credentials=None) -> str:
    """The account a sign-in is for: allauth's `email` credential (or its form's `login`
    field), lower-cased so that case changes do not reset the count."""
    source = credentials or {}
    if not source and request is not None:
        if not hasattr(request, "POST"):  # an axes record: its username as stored
            return str(getattr(request, "username", "") or "")
        source = getattr(request, "data", None) or request.POST
    if source.get("username"):
        return str(source["username"])
    return str(source.get("email") or source.get("login") or "").strip().lower()


def is_staff_sign_in(request, credentials=None) -> bool:
    """Whether the address typed is a staff member's (read once per request)."""
    typed = axes_username(request, credentials)
    if not typed:
        return False
    known = getattr(request, "staff_sign_ins", None)
    if known is None:
        known = {}
        if hasattr(request, "POST"):
            request.staff_sign_ins = known
    if typed not in known:
        known[typed] = (
            EmailAddress.objects.filter(email__iexact=typed, user__is_staff=True).exists()
            or get_user_model().objects.filter(email__iexact=typed, is_staff=True).exists()
        )
    return known[typed]


def lockout_parameters(request, credentials=None) -> list:
    """AXES_LOCKOUT_PARAMETERS: a staff account's failures count from every address together,
    a member's per client address."""
    if is_staff_sign_in(request, credentials):
        return ["username"]
    return [["username", "ip_address"]]


def failure_limit(request, credentials=None) -> int:
    """AXES_FAILURE_LIMIT: THROTTLE_STAFF_SIGN_IN's count for staff, else THROTTLE_ADMIN_LOGIN's."""
    if is_staff_sign_in(request, credentials):
        return rate(settings.THROTTLE_STAFF_SIGN_IN)[0]
    return rate(settings.THROTTLE_ADMIN_LOGIN)[0]


def cool_off(request=None) -> timedelta:
    """AXES_COOLOFF_TIME: the period of the limit that applies."""
    if request is not None and is_staff_sign_in(request):
        return rate(settings.THROTTLE_STAFF_SIGN_IN)[1]
    return rate(settings.THROTTLE_ADMIN_LOGIN)[1]


def locked_out(request, original_response=None, credentials=None):
    """axes' answer to a locked-out sign-in (AXES_LOCKOUT_CALLABLE): the pause page, 429."""
    wait = int((get_cool_off(request) or timedelta(hours=1)).total_seconds())
    response = render(
        request,
        "account/login_throttled.html",
        {"wait_minutes": max(1, round(wait / 60))},
        status=429,
    )
    response["Retry-After"] = str(wait)
    return response


def lift_lock(sender, request, user, **kwargs) -> None:
    """A password reset by e-mail (allauth's password_reset signal) lifts the account's axes
    lock at once, from every address: whoever holds the mailbox is the account's owner, and the
    failures of others no longer keep them out. allauth lifts its own per-account limit then."""
    addresses = set(EmailAddress.objects.filter(user=user).values_list("email", flat=True))
    addresses.add(user.email)
    for address in addresses - {""}:
        axes_reset(username=address.strip().lower())


def one_sign_in_at_a_time(account: str) -> None:
    """Wait for any other sign-in of `account` to finish (until the end of this transaction)."""
    if connection.vendor != "postgresql":
        return  # SQLite: the transaction began with the database's write lock (IMMEDIATE)
    digest = hashlib.blake2b(f"dashboard-login\0{account}".encode(), digest_size=8)
    lock = int.from_bytes(digest.digest(), "big", signed=True)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [lock])


def login(request, *args, **kwargs):
    """allauth's sign-in (`/accounts/login/`), the attempts for one account taken one at a time,
    so that passwords sent at once, from one address or many, never outnumber axes' limit."""
    if request.method != "POST" or not settings.AXES_ENABLED:
        return allauth_views.login(request, *args, **kwargs)
    with transaction.atomic():
        one_sign_in_at_a_time(axes_username(request))
        return allauth_views.login(request, *args, **kwargs)
