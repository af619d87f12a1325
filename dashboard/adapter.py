"""allauth's adapter: the client address as the rest of the service reads it."""

from allauth.account.adapter import DefaultAccountAdapter

from dashboard.audit import client_ip


class AccountAdapter(DefaultAccountAdapter):
    def get_client_ip(self, request) -> str:
        # allauth's rate limits (ACCOUNT_RATE_LIMITS) key on this: the proxies of
        # THROTTLE_TRUSTED_PROXIES, as axes and the audit log.
        return client_ip(request) or super().get_client_ip(request)
