"""Rate limit per API key (429 rate_limited with Retry-After); API_RATE_LIMIT sets the rate."""

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle


class ApiKeyRateThrottle(SimpleRateThrottle):
    scope = "api_key"

    def get_rate(self):
        # Read at request time so that a changed setting takes effect without a restart of tests.
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def get_cache_key(self, request, view):
        principal = request.user
        ident = f"key:{principal.api_key.pk}" if principal is not None else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}
