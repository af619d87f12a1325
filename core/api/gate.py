"""What an API request asks of the shared cache before it runs, asked in one round trip.

Each authenticated /v1 request needs three things from the cache (Redis in production): whether
its client address is blocked for failed authentications, the generation of the API key cache
(payments/api/principals.py), and its key's request count for the rate limit. With Redis they are
one Lua script, sent through redis-py's registered script on a client of the process's own, made
from the cache's settings (the same server and keys as the cache); with another cache (the
embedded set-up) they are a few ordinary cache calls.

The rate limit is a sliding window estimated from two fixed windows: the current window's count
plus the previous window's, weighted by how much of it still overlaps the sliding window. Only
requests let through are counted (a refused one is taken back), so a client over the rate still
gets the full rate through.

When the cache cannot be reached every answer is "unknown" (None): the rate limit and the
authentication throttle are not applied, and no cached key is trusted (the database is asked).
"""

import logging
import math
import secrets
import threading
import time
from dataclasses import dataclass

import redis
from django.conf import settings
from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from redis.backoff import NoBackoff
from redis.commands.core import Script
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.retry import Retry

from core import throttles

logger = logging.getLogger("payments.api")

GENERATION_KEY = "apikeys:generation"


@dataclass(frozen=True)
class RateWindow:
    """One request counted against a key's rate: the counts of the current and previous fixed
    windows (this request included) and where in the current window it falls."""

    limit: int
    period: int
    current: int
    previous: int
    elapsed: float  # seconds since the current window began
    key: str  # the current window's counter

    @property
    def estimate(self) -> float:
        return self.previous * (1 - self.elapsed / self.period) + self.current

    @property
    def allowed(self) -> bool:
        return self.estimate <= self.limit

    def wait(self) -> int:
        """Seconds until one more request would be let through (at least 1)."""
        room = self.limit - (self.current - 1)  # this refused request is taken back
        if room <= 0 or self.previous == 0:
            seconds = self.period - self.elapsed  # the next window
        else:
            # previous * (1 - t / period) + current - 1 <= limit - 1, solved for t
            overlap_needed = 1 - (room - 1) / self.previous
            seconds = overlap_needed * self.period - self.elapsed
        return max(1, math.ceil(seconds))


@dataclass(frozen=True)
class Seen:
    """What the cache said: None where it could not be asked."""

    auth_failures: int | None
    generation: int | None
    rate: RateWindow | None


def _rate_keys(ident: str, limit_text: str) -> tuple[throttles.Rate, str, str, float]:
    rate = throttles.Rate.parse(limit_text)
    now = time.time()
    index = int(now // rate.period)
    current = f"ratelimit:{ident}:{index}"
    previous = f"ratelimit:{ident}:{index - 1}"
    return rate, current, previous, now - index * rate.period


def ask(*, address: str, rate_ident: str | None, rate_text: str) -> Seen:
    """Read the address's failed authentications and the key cache generation and, given a
    `rate_ident`, count one request against `rate_text` (e.g. "100/s")."""
    backend = caches["default"]
    failures_key, _ = throttles.window_key(
        "auth_failures", address, throttles.Rate.parse(settings.THROTTLE_AUTH_FAILURES)
    )
    rate = current = previous = elapsed = None
    if rate_ident is not None:
        rate, current, previous, elapsed = _rate_keys(rate_ident, rate_text)
    try:
        if isinstance(backend, RedisCache):
            failures, generation, counts = _ask_redis(
                backend, failures_key, rate, current, previous
            )
        else:
            failures, generation, counts = _ask_cache(
                backend, failures_key, rate, current, previous
            )
    except Exception as exc:  # the cache is down: nothing is applied, nothing cached is trusted
        logger.warning("rate limits not applied, cache unavailable: %s", type(exc).__name__)
        return Seen(auth_failures=None, generation=None, rate=None)
    window = None
    if counts is not None:
        window = RateWindow(
            limit=rate.count,
            period=rate.period,
            current=counts[0],
            previous=counts[1],
            elapsed=elapsed,
            key=current,
        )
    return Seen(auth_failures=failures, generation=generation, rate=window)


def _int(value) -> int:
    return int(value) if value is not None else 0


# One command for the whole question: [failures, generation, current count, previous count].
ASK_SCRIPT = """
local failures = redis.call('GET', KEYS[1])
local generation = redis.call('GET', KEYS[2])
if #KEYS == 2 then
  return {failures, generation, false, false}
end
local current = redis.call('INCR', KEYS[3])
if current == 1 then
  redis.call('EXPIRE', KEYS[3], ARGV[1])
end
return {failures, generation, current, redis.call('GET', KEYS[4])}
"""


# The options of Django's RedisCache that are the cache's own, not the connection's.
CACHE_ONLY_OPTIONS = ("pool_class", "parser_class", "serializer")

_clients: dict[str, tuple[redis.Redis, Script]] = {}
_clients_lock = threading.Lock()


def redis_client() -> redis.Redis:
    """The process's client of the default cache's Redis server (the first of its LOCATION, the
    one it writes to), made with the cache's connection options: one per process and server,
    since redis-py builds a costly object for each client, and the same server and keys as the
    cache. A connection that Redis closed (a restart, an idle timeout) is opened again and its
    command sent once more; a timeout is raised as it is (the command may have run)."""
    return _client_and_script()[0]


def _client_and_script() -> tuple[redis.Redis, Script]:
    config = settings.CACHES["default"]
    location = config["LOCATION"]
    location = (location if isinstance(location, str) else location[0]).split(",")[0]
    found = _clients.get(location)
    if found is None:
        options = config.get("OPTIONS", {})
        options = {k: v for k, v in options.items() if k not in CACHE_ONLY_OPTIONS}
        retry = Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,))
        with _clients_lock:
            found = _clients.get(location)
            if found is None:
                client = redis.Redis.from_url(location, retry=retry, **options)
                # redis-py sends EVALSHA, and loads the script when Redis has lost it.
                found = _clients[location] = (client, client.register_script(ASK_SCRIPT))
    return found


def _ask_redis(backend: RedisCache, failures_key: str, rate, current, previous):
    keys = [backend.make_key(failures_key), backend.make_key(GENERATION_KEY)]
    args = []
    if rate is not None:
        keys += [backend.make_key(current), backend.make_key(previous)]
        args = [2 * rate.period + 1]
    failures, generation, count, before = _client_and_script()[1](keys=keys, args=args)
    if generation is None:
        generation = _new_generation(backend)
    counts = (int(count), _int(before)) if rate is not None else None
    return _int(failures), (int(generation) if generation is not None else None), counts


def _new_generation(backend):
    """A cache that lost its generation (new, flushed or restarted) starts from a random one, so
    that a key cached under an old number can never match it again. Nothing is trusted now."""
    backend.add(GENERATION_KEY, secrets.randbits(52), timeout=None)
    return None


def _ask_cache(backend, failures_key: str, rate, current, previous):
    found = backend.get_many([failures_key, GENERATION_KEY])
    generation = found.get(GENERATION_KEY)
    if generation is None:
        _new_generation(backend)
    counts = None
    if rate is not None:
        backend.add(current, 0, timeout=2 * rate.period + 1)
        counts = (backend.incr(current), _int(backend.get(previous)))
    return _int(found.get(failures_key)), generation, counts


def refused(window: RateWindow) -> None:
    """Take back the count of a request the rate limit refused."""
    try:
        cache.decr(window.key)
    except Exception as exc:
        logger.warning("rate limit count not taken back: %s", type(exc).__name__)


def generation_bump() -> None:
    """Every API key cached before now must be read again from the database."""
    backend = caches["default"]
    try:
        if isinstance(backend, RedisCache):
            redis_client().incr(backend.make_key(GENERATION_KEY))
        else:
            try:
                backend.incr(GENERATION_KEY)
            except ValueError:  # no generation yet: nothing was cached against one
                _new_generation(backend)
    except Exception as exc:
        logger.error("API key cache not invalidated, cache unavailable: %s", type(exc).__name__)
