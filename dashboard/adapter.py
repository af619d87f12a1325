"""allauth's adapter: the client address as the rest of the service reads it; the sign-ins its
rate limit refuses, in the audit log."""

from allauth.account.adapter import DefaultAccountAdapter
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from dashboard import audit
from dashboard.models import Action


class AccountAdapter(DefaultAccountAdapter):
    # allauth's per-account limit on failed sign-ins: what lifts it at once
    # (docs/operations/security.md#sign-in-lockouts).
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "too_many_login_attempts": _(
            "Too many failed sign-ins for this account. A password reset by e-mail unlocks it at "
            "once (“Forgot your password?”); otherwise try again in a few minutes."
        ),
    }

    def get_client_ip(self, request) -> str:
        # allauth's rate limits (ACCOUNT_RATE_LIMITS) key on this: the proxies of
        # THROTTLE_TRUSTED_PROXIES, as axes and the audit log.
        return audit.client_ip(request) or super().get_client_ip(request)

    def pre_authenticate(self, request, **credentials) -> None:
        """A sign-in refused by allauth's rate limit (too many failures for the address typed,
        or from the client address) is refused before any password is checked, so Django's
        user_login_failed, which writes the other failed sign-ins, never comes."""
        try:
            super().pre_authenticate(request, **credentials)
        except ValidationError:
            typed = credentials.get("email") or credentials.get("username") or ""
            audit.record_for_person(request, Action.LOGIN_FAILED, email=str(typed))
            raise

    def get_login_redirect_url(self, request) -> str:
        """Staff land on the admin (when the sign-in named no page), members on the dashboard."""
        if request.user.is_staff:
            return reverse("admin:index")
        return super().get_login_redirect_url(request)
