"""API key authentication: `Authorization: Bearer sk_test_…|sk_live_…`.

The key decides the merchant and the mode; views read both from `request.user`. The key is looked
up in the process's key cache (payments/api/principals.py), checked against the shared cache in
the request's one round trip (core/api/gate.py), which also counts the request for the rate
limit (core/api/throttling.py).
"""

from dataclasses import dataclass

from django.conf import settings
from django.utils.translation import gettext
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.permissions import BasePermission
from rest_framework.settings import api_settings

from core import throttles
from core.api import gate
from payments.api import principals
from payments.models import ApiKey, Merchant, hash_api_key

KEY_PREFIXES = ("sk_test_", "sk_live_")
RATE_SCOPE = "api_key"


@dataclass(frozen=True)
class ApiPrincipal:
    """Who is calling: a merchant in one mode, through one key."""

    merchant: Merchant
    livemode: bool
    api_key: ApiKey

    is_authenticated = True
    is_anonymous = False

    @property
    def pk(self) -> int:
        return self.api_key.pk


class ApiKeyAuthentication(BaseAuthentication):
    """A client address that keeps sending wrong keys (THROTTLE_AUTH_FAILURES) has its requests
    without a valid key answered 429 for the rest of the window, instead of 401. A request with
    a valid, unrevoked key is never refused for it: behind a proxy, or from a shared office, one
    client sending wrong keys must not lock out the merchants that share its address. Guessing a
    key is hopeless anyway (a key carries about 190 random bits); what the throttle stops is an
    address hammering the API with wrong keys, which it no longer gets an answer about."""

    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "").strip()
        if not header:
            return None
        address = throttles.client_address(request)
        scheme, _, token = header.partition(" ")
        token = token.strip()
        well_formed = scheme.lower() == "bearer" and token.startswith(KEY_PREFIXES)
        well_formed = well_formed and " " not in token
        key_hash = hash_api_key(token) if well_formed else None
        # The key's hash, not its row id, counts its requests: a row id can be handed out again
        # (SQLite reuses them after a rollback), and a new key must not inherit another's count.
        seen = gate.ask(
            address=address,
            rate_ident=f"{RATE_SCOPE}:{key_hash[:32]}" if key_hash else None,
            rate_text=api_settings.DEFAULT_THROTTLE_RATES[RATE_SCOPE],
        )
        key = principals.lookup(key_hash, generation=seen.generation) if key_hash else None
        if key is not None:  # whatever others sent from this address
            request.api_rate = seen.rate
            return ApiPrincipal(merchant=key.merchant, livemode=key.livemode, api_key=key), key
        failures_rate = throttles.Rate.parse(settings.THROTTLE_AUTH_FAILURES)
        if seen.auth_failures is not None and seen.auth_failures >= failures_rate.count:
            _, wait = throttles.window_key("auth_failures", address, failures_rate)
            raise Throttled(wait=wait)
        self._failed(address)
        if well_formed:
            raise AuthenticationFailed(gettext("Invalid API key provided."), code="invalid_api_key")
        raise AuthenticationFailed(
            gettext("Invalid API key. Send 'Authorization: Bearer sk_test_…' or 'sk_live_…'."),
            code="invalid_api_key",
        )

    @staticmethod
    def _failed(address: str) -> None:
        throttles.hit("auth_failures", address, settings.THROTTLE_AUTH_FAILURES)

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="api"'


class HasApiKey(BasePermission):
    def has_permission(self, request, view) -> bool:
        return isinstance(request.user, ApiPrincipal)
