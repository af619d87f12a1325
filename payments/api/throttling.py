"""Rate limit per API key (429 rate_limited with Retry-After); API_RATE_LIMIT sets the rate.

The counts live in the cache (Redis in production). When the cache cannot be reached the limit is
not applied rather than failing every request: payments keep working through a Redis outage.
"""

import logging

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

logger = logging.getLogger("payments.api")


class ApiKeyRateThrottle(SimpleRateThrottle):
    scope = "api_key"

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except Exception as exc:  # the cache is down: let the request through, say so
            logger.warning("rate limit not applied, cache unavailable: %s", type(exc).__name__)
            return True

    def get_rate(self):
        # Read at request time so that a changed setting takes effect without a restart of tests.
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def get_cache_key(self, request, view):
        principal = request.user
        # The key's hash, not its row id: a row id can be handed out again (SQLite reuses them
        # after a rollback), and a new key must not inherit another key's request history.
        ident = (
            f"key:{principal.api_key.key_hash[:32]}"
            if principal is not None
            else self.get_ident(request)
        )
        return self.cache_format % {"scope": self.scope, "ident": ident}
