"""Throttles outside the API key's rate limit: failed authentication, payment attempts from hosted
pages and operators' callbacks, each counted per client address (and payment attempts per
checkout session too). Failed sign-ins are django-axes' (dashboard/signin.py).

Fixed windows counted in the cache (Redis in production). Like the API's rate limit, a throttle
whose cache cannot be reached lets the request through (and says so in the log): payments keep
working through a Redis outage. Rates are "N/s", "N/m", "N/h" or "N/d" (settings THROTTLE_*),
or with a number of periods, "N/10m".

The prompts sent to one phone from the hosted pages are counted in the database instead
(checkout.services, PHONE_PROMPT_LIMITS): across every client address, exactly, on any cache.
"""

import functools
import logging
import re
import time
from dataclasses import dataclass
from functools import wraps

from django.conf import settings
from django.core.cache import cache

logger = logging.getLogger("core.throttles")

PERIODS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
RATE = re.compile(r"(?P<count>[0-9]+)\s*/\s*(?P<times>[0-9]*)\s*(?P<unit>[smhd])[a-z]*", re.ASCII)


@dataclass(frozen=True)
class Rate:
    count: int
    period: int

    @classmethod
    @functools.lru_cache(maxsize=64)  # a few settings, read by every request
    def parse(cls, text: str) -> "Rate":
        """`"30/h"` (or `"30/hour"`) or `"5/10m"`; ValueError for anything else."""
        match = RATE.fullmatch(text.strip())
        if match is None or int(match["times"] or 1) == 0:
            raise ValueError(f"not a rate: {text!r}")
        times = int(match["times"] or 1)
        return cls(count=int(match["count"]), period=times * PERIODS[match["unit"]])

    @classmethod
    def parse_list(cls, text: str) -> tuple["Rate", ...]:
        """`"5/10m,20/d"`: every rate of a comma-separated list."""
        return tuple(cls.parse(part) for part in text.split(",") if part.strip())


def client_address(request) -> str:
    """The caller's address: REMOTE_ADDR, or with THROTTLE_TRUSTED_PROXIES proxies in front of
    us, the address the outermost trusted proxy saw (counted from the right of
    X-Forwarded-For, so a client cannot forge it by sending the header itself)."""
    proxies = settings.THROTTLE_TRUSTED_PROXIES
    if proxies:
        forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        forwarded = [a for a in forwarded if a]
        if len(forwarded) >= proxies:
            return forwarded[-proxies]
    return request.META.get("REMOTE_ADDR", "") or "unknown"


def window_key(scope: str, ident: str, rate: Rate) -> tuple[str, int]:
    """The cache key counting `ident`'s requests in the current window, and the seconds left in it."""
    now = time.time()
    index = int(now // rate.period)
    wait = max(1, int((index + 1) * rate.period - now + 0.999))
    return f"throttle:{scope}:{ident}:{index}", wait


def hit(scope: str, ident: str, rate_text: str) -> int | None:
    """Count one request; the seconds to wait when it is over the rate, else None."""
    rate = Rate.parse(rate_text)
    key, wait = window_key(scope, ident, rate)
    try:
        cache.add(key, 0, timeout=rate.period + 1)
        count = cache.incr(key)
    except Exception as exc:  # the cache is down: let it through, say so
        logger.warning("%s throttle not applied, cache unavailable: %s", scope, type(exc).__name__)
        return None
    return wait if count > rate.count else None


def claim(scope: str, ident: str, seconds: int) -> bool:
    """Take the next `seconds` for `ident` (the shared cache's atomic add: Redis SET NX with an
    expiry): of any number of callers at once, one gets True until the time is over. With the
    cache out of reach nobody gets it (and the log says so): what the claim bounds is then not
    done, and the caller leaves it to a sweep."""
    try:
        return bool(cache.add(f"claim:{scope}:{ident}", 1, timeout=seconds))
    except Exception as exc:
        logger.warning("%s claim for %s refused, cache unavailable: %s", scope, ident, exc)
        return False


def per_address(scope: str, setting: str, too_many):
    """View decorator: count each request of a client address against settings.<setting>;
    over it, answer `too_many(request, wait)` instead of running the view."""

    def decorate(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            rate = getattr(settings, setting)
            wait = hit(scope, client_address(request), rate)
            if wait is not None:
                logger.warning("%s: %s over %s", scope, client_address(request), rate)
                return too_many(request, wait)
            return view(request, *args, **kwargs)

        return wrapper

    return decorate
