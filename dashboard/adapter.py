"""allauth's adapter: the client address as the rest of the service reads it; the sign-ins its
rate limit refuses, in the audit log."""

from allauth.account.adapter import DefaultAccountAdapter
from django.core.exceptions import ValidationError

from dashboard import audit
from dashboard.models import Action


class AccountAdapter(DefaultAccountAdapter):
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
