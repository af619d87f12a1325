"""Sign-ins and two-factor changes into the audit log (allauth's and Django's signals; the
sign-ins allauth's rate limit refuses are written by dashboard.adapter); a two-factor change
ends the person's other sessions."""

from allauth.account.signals import user_logged_in
from allauth.mfa.models import Authenticator
from allauth.mfa.signals import (
    authentication_failed,
    authenticator_added,
    authenticator_removed,
    authenticator_reset,
)
from django.contrib.auth.signals import user_login_failed

from dashboard import audit, notifications
from dashboard.models import Action
from dashboard.sessions import other_sessions_end


def logged_in(sender, request, user, **kwargs):
    audit.record_for_person(request, Action.LOGIN_SUCCEEDED, user=user)


def login_failed(sender, credentials, request=None, **kwargs):
    """Every failed authentication (Django's signal, which axes counts too): the dashboard's
    e-mail sign-in and the staff one alike."""
    typed = credentials.get("email") or credentials.get("username") or ""
    audit.record_for_person(request, Action.LOGIN_FAILED, email=str(typed))


def mfa_failed(sender, request, user, authenticator, reauthentication=False, **kwargs):
    """A wrong code at the sign-in's two-factor step: the password was right, the sign-in
    failed all the same. A wrong code when re-confirming, signed in already, is no sign-in."""
    if not reauthentication:
        audit.record_for_person(request, Action.LOGIN_FAILED, user=user)


def mfa_added(sender, request, user, authenticator, **kwargs):
    if authenticator.type == Authenticator.Type.TOTP:
        audit.record_for_person(request, Action.MFA_ACTIVATED, user=user)


def mfa_removed(sender, request, user, authenticator, **kwargs):
    if authenticator.type == Authenticator.Type.TOTP:
        audit.record_for_person(request, Action.MFA_DEACTIVATED, user=user)
        notifications.two_factor_off_told(user)


def mfa_changed(sender, request, user, **kwargs):
    """Two-factor turned on or off, or new recovery codes: whoever holds another session of the
    person (a stolen cookie, a shared computer) signs in again, with the factors as they are
    now; the browser that made the change stays signed in."""
    keep = request.session.session_key if request is not None else None
    other_sessions_end(user=user, keep=keep)


def connect() -> None:
    user_logged_in.connect(logged_in, dispatch_uid="dashboard.audit.logged_in")
    user_login_failed.connect(login_failed, dispatch_uid="dashboard.audit.login_failed")
    authentication_failed.connect(mfa_failed, dispatch_uid="dashboard.audit.mfa_failed")
    authenticator_added.connect(mfa_added, dispatch_uid="dashboard.audit.mfa_added")
    authenticator_removed.connect(mfa_removed, dispatch_uid="dashboard.audit.mfa_removed")
    for signal in (authenticator_added, authenticator_removed, authenticator_reset):
        signal.connect(mfa_changed, dispatch_uid="dashboard.sessions.mfa_changed")
