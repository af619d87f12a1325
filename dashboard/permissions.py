"""Who may do what in the dashboard (the role table of docs/guides/dashboard.md), and the views'
guard.

`PERMISSIONS` (dashboard/roles.py) is the one map of the role table; `can(membership, perm)`
reads it, and so do the
templates' `{% if membership|can:"refund" %}` (templatetags/dashboard.py). Every dashboard view
is wrapped in `merchant_view(perm)`, which resolves the active merchant (the session's, else the
first of the user's), the mode from the path (live only once the merchant is approved), and
the user's membership: no membership or an unapproved live mode answers 404, a role without the
permission a 403 page, before the view runs (so nothing is changed) — unless the path names an
object that is not the merchant's in that mode: that is 404 for every role, never 403.
"""

import time
from functools import wraps
from zoneinfo import ZoneInfo

from allauth.account.authentication import get_authentication_records
from allauth.core.exceptions import ReauthenticationRequired
from allauth.mfa.utils import is_mfa_enabled
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _

from batches.models import PayoutBatch
from dashboard import languages
from dashboard.models import Invitation, Membership, MerchantSettings
from dashboard.roles import (
    OWNER,
    PERMISSIONS,
)
from links.models import PaymentLink
from payments.models import ApiKey, Charge, Payout, Settlement, SettlementAccount
from webhooks.models import Event

MODES = ("test", "live")
SESSION_MERCHANT = "dashboard_merchant"


def can(membership: Membership | None, perm: str) -> bool:
    if perm not in PERMISSIONS:
        raise KeyError(f"unknown dashboard permission {perm!r}")
    return membership is not None and membership.role in PERMISSIONS[perm]


def may_manage(actor: Membership, target_role: str) -> bool:
    """Whether `actor` may invite, change or remove a member of `target_role` (or give that
    role): team members may, but an admin never touches an owner."""
    if not can(actor, "team"):
        return False
    return actor.role == OWNER or target_role != OWNER


def memberships_of(user):
    return Membership.objects.filter(user=user).select_related("merchant").order_by("created_at")


def active_membership(request) -> Membership | None:
    """The membership of the merchant chosen in the session, else the user's first one."""
    if not request.user.is_authenticated:
        return None
    memberships = memberships_of(request.user)
    chosen = request.session.get(SESSION_MERCHANT)
    if chosen:
        found = memberships.filter(merchant_id=chosen).first()
        if found is not None:
            return found
    return memberships.first()


def two_factor_missing(request, membership: Membership) -> bool:
    """The merchant requires two-factor and this user has no TOTP yet."""
    return MerchantSettings.objects.filter(
        merchant_id=membership.merchant_id, require_two_factor=True
    ).exists() and not has_totp(request.user)


def has_totp(user) -> bool:
    return is_mfa_enabled(user, types=["totp"])


def forbidden(request):
    """The 403 page: the role may not do this; nothing was changed."""
    return render(request, "dashboard/403.html", status=403)


# The objects the dashboard's paths name (dashboard/urls.py, dashboard/pages/urls.py): the path's
# argument → the objects of a merchant in a mode ("test" | "live", "" outside a mode).
PATH_OBJECTS = {
    "charge_id": lambda merchant, mode: Charge.objects.filter(
        merchant=merchant, livemode=mode == "live"
    ),
    "payout_id": lambda merchant, mode: Payout.objects.filter(
        merchant=merchant, livemode=mode == "live"
    ),
    "batch_id": lambda merchant, mode: PayoutBatch.objects.filter(
        merchant=merchant, livemode=mode == "live"
    ),
    "link_id": lambda merchant, mode: PaymentLink.objects.filter(
        merchant=merchant, livemode=mode == "live"
    ),
    "event_id": lambda merchant, mode: Event.objects.filter(
        merchant=merchant, livemode=mode == "live"
    ),
    "key_id": lambda merchant, mode: ApiKey.objects.filter(merchant=merchant, mode=mode),
    "settlement_id": lambda merchant, mode: Settlement.objects.filter(
        merchant=merchant, livemode=mode == "live"
    ),
    # The settlement settings list both modes' accounts on one page, outside a mode.
    "account_id": lambda merchant, mode: SettlementAccount.objects.filter(merchant=merchant),
    "member_id": lambda merchant, mode: Membership.objects.filter(merchant=merchant),
    "invitation_id": lambda merchant, mode: Invitation.objects.filter(merchant=merchant),
}


def names_another_merchants_object(merchant, mode: str, path_arguments: dict) -> bool:
    """Whether the path names an object that is not `merchant`'s in `mode` (another merchant's,
    another mode's, or none at all)."""
    for name, value in path_arguments.items():
        objects = PATH_OBJECTS.get(name)
        if objects is None:
            continue
        try:
            found = objects(merchant, mode).filter(pk=value).exists()
        except ValueError:  # not an id of that kind at all (a number expected)
            found = False
        if not found:
            return True
    return False


def merchant_view(perm: str = "view", *, mode_in_path: bool = True):
    """Guard a dashboard view (see the module's docstring). The view receives `mode` from the
    path when `mode_in_path`; `request.membership`, `request.merchant` and `request.mode` are
    set (mode "" for the pages outside a mode: settings, audit)."""

    def decorator(view):
        @login_required
        @wraps(view)
        def guarded(request, *args, **kwargs):
            mode = kwargs.get("mode", "") if mode_in_path else ""
            membership = active_membership(request)
            if membership is None:
                if request.method == "GET":
                    return redirect("dashboard:no-merchant")
                raise Http404
            merchant = membership.merchant
            if mode_in_path and (
                mode not in MODES or (mode == "live" and not merchant.live_approved)
            ):
                raise Http404
            if two_factor_missing(request, membership):
                messages.warning(
                    request,
                    _("%(merchant)s requires two-factor authentication: set it up to continue.")
                    % {"merchant": merchant.name},
                )
                return redirect("mfa_activate_totp")
            request.membership = membership
            request.merchant = merchant
            request.mode = mode
            languages.remember(request)
            if not can(membership, perm):
                if names_another_merchants_object(merchant, mode, kwargs):
                    raise Http404  # another merchant's objects answer 404, never 403
                return forbidden(request)
            # Every time the page shows is the merchant's (docs/guides/dashboard.md); the
            # pages render before the view returns, so the zone is the view's alone.
            timezone.activate(ZoneInfo(merchant.time_zone))
            try:
                return view(request, *args, **kwargs)
            finally:
                timezone.deactivate()

        guarded.dashboard_permission = perm
        return guarded

    return decorator


def recently_authenticated(request) -> bool:
    """A sign-in or a re-confirmation (password or code) within ACCOUNT_REAUTHENTICATION_TIMEOUT
    seconds, from the session's authentication records (allauth's)."""
    timeout = settings.ACCOUNT_REAUTHENTICATION_TIMEOUT
    now = time.time()
    return any(
        now - record["at"] < timeout for record in get_authentication_records(request, request.user)
    )


def live_sensitive(view):
    """In live mode the acting user needs TOTP and a sign-in or re-confirmation within the
    last ACCOUNT_REAUTHENTICATION_TIMEOUT seconds; otherwise allauth asks them to confirm (its
    reauthentication page, which then resumes the request). Put it inside `merchant_view` (it
    reads `request.mode`)."""

    @wraps(view)
    def guarded(request, *args, **kwargs):
        if request.mode == "live":
            if not has_totp(request.user):
                messages.warning(
                    request, _("Live mode needs two-factor authentication: set it up first.")
                )
                return redirect("mfa_index")
            if not recently_authenticated(request):
                raise ReauthenticationRequired
        return view(request, *args, **kwargs)

    return guarded
