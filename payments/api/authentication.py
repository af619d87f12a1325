"""API key authentication: `Authorization: Bearer sk_test_…|sk_live_…`.

The key decides the merchant and the mode; views read both from `request.user`.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django.utils.translation import gettext
from rest_framework.authentication import BaseAuthentication
from rest_framework.exceptions import AuthenticationFailed, Throttled
from rest_framework.permissions import BasePermission

from payments import throttles
from payments.models import ApiKey, Merchant, hash_api_key

KEY_PREFIXES = ("sk_test_", "sk_live_")
LAST_USED_PRECISION = timedelta(minutes=1)


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
    """A client address that keeps sending wrong keys (THROTTLE_AUTH_FAILURES) is answered 429
    for the rest of the window, whatever key it sends: guessing keys is not worth trying."""

    def authenticate(self, request):
        header = request.META.get("HTTP_AUTHORIZATION", "").strip()
        if not header:
            return None
        address = throttles.client_address(request)
        wait = throttles.blocked("auth_failures", address, settings.THROTTLE_AUTH_FAILURES)
        if wait is not None:
            raise Throttled(wait=wait)
        scheme, _, token = header.partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token.startswith(KEY_PREFIXES) or " " in token:
            self._failed(address)
            raise AuthenticationFailed(
                gettext("Invalid API key. Send 'Authorization: Bearer sk_test_…' or 'sk_live_…'."),
                code="invalid_api_key",
            )
        key = (
            ApiKey.objects.select_related("merchant")
            .filter(key_hash=hash_api_key(token), revoked_at__isnull=True)
            .first()
        )
        if key is None:
            self._failed(address)
            raise AuthenticationFailed(gettext("Invalid API key provided."), code="invalid_api_key")
        now = timezone.now()
        if key.last_used_at is None or now - key.last_used_at > LAST_USED_PRECISION:
            ApiKey.objects.filter(pk=key.pk).update(last_used_at=now)
        return ApiPrincipal(merchant=key.merchant, livemode=key.livemode, api_key=key), key

    @staticmethod
    def _failed(address: str) -> None:
        throttles.hit("auth_failures", address, settings.THROTTLE_AUTH_FAILURES)

    def authenticate_header(self, request) -> str:
        return 'Bearer realm="api"'


class HasApiKey(BasePermission):
    def has_permission(self, request, view) -> bool:
        return isinstance(request.user, ApiPrincipal)
