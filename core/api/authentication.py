"""API key authentication: `Authorization: Bearer sk_test_…|sk_live_…`.

The key decides the merchant and the mode; views read both from `request.user`, a principal
(below). Which key is whose is the app's that issues keys: the function named by
API_KEY_RESOLVER is given the key's hash (hash_api_key, which is also how keys are stored) and
the key cache's generation, read in the request's one round trip to the shared cache
(core/api/gate.py), which also counts the request for the rate limit (core/api/throttling.py). It
answers as DRF's authenticate does: (principal, the key) for an active key, else None.
"""

import functools
import hashlib
from collections.abc import Callable
from typing import Protocol

from django.conf import settings
from django.db import models
from django.utils.module_loading import import_string
from django.utils.translation import gettext
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.permissions import BasePermission
from rest_framework.settings import api_settings

from core import throttles
from core.api import gate

KEY_PREFIXES = ("sk_test_", "sk_live_")
RATE_SCOPE = "api_key"


class Principal(Protocol):
    """Who is calling, as the /v1 machinery sees them: a merchant in one mode."""

    merchant: models.Model
    livemode: bool
    is_authenticated: bool


def hash_api_key(plaintext: str) -> str:
    """Keys carry 190 bits of randomness, so a plain SHA-256 is enough to store them safely."""
    return hashlib.sha256(plaintext.encode()).hexdigest()


@functools.cache
def _resolver(path: str) -> Callable[..., tuple[Principal, object] | None]:
    return import_string(path)


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
        resolve = _resolver(settings.API_KEY_RESOLVER)
        found = resolve(key_hash, generation=seen.generation) if key_hash else None
        if found is not None:  # whatever others sent from this address
            request.api_rate = seen.rate
            return found
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
        return request.user is not None and request.user.is_authenticated
