"""Rate limit per API key (429 rate_limited with Retry-After); API_RATE_LIMIT sets the rate.

The request was counted by authentication, in its one round trip to the cache (Redis in
production; core/api/gate.py): this throttle only reads the count. When the cache cannot be
reached the limit is not applied rather than failing every request: payments keep working
through a Redis outage.
"""

import logging

from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from core.api import gate

logger = logging.getLogger("payments.api")


class ApiKeyRateThrottle(SimpleRateThrottle):
    scope = "api_key"

    def __init__(self):
        pass  # the rate is read where it is needed: by authentication, or below without a key

    def allow_request(self, request, view):
        if request.user is None:  # no key (a public page such as the API docs): per address
            super().__init__()
            try:
                return super().allow_request(request, view)
            except Exception as exc:  # the cache is down: let the request through, say so
                logger.warning("rate limit not applied, cache unavailable: %s", type(exc).__name__)
                return True
        self.window = getattr(request, "api_rate", None)
        if self.window is None or self.window.allowed:  # None: the cache is down
            return True
        gate.refused(self.window)
        return False

    def wait(self):
        window = getattr(self, "window", None)
        return window.wait() if window is not None else super().wait()

    def get_rate(self):
        # Read at request time so that a changed setting takes effect without a restart of tests.
        return api_settings.DEFAULT_THROTTLE_RATES[self.scope]

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
