"""Slots: at most a few of one kind of long answer at once per holder, counted in the shared cache
(Redis in production, the file cache of the embedded set-up), across every process.

A merchant's statement (GET /v1/balance_transactions/export) streams, and a web server thread
writes it all along, for as long as it takes to make and to be taken (by nginx in production,
config/gunicorn.py; by the client itself without nginx): without a bound, one key asking for a
few statements at once (and, without nginx, reading them slowly) could hold every thread of the
service. A slot is one of `limit` cache entries per holder, taken with `add` (atomic in Redis),
held for LEASE seconds and renewed while the answer is being written, given back when the answer
ends or its client goes; one whose process died frees itself after LEASE. A cache that cannot be
reached lets the answer through (and says so in the log), as the throttles do.
"""

import logging
import secrets
import time

from django.core.cache import cache

logger = logging.getLogger("core.slots")

LEASE = 60  # seconds a slot is held without news of its answer
RENEW = 10  # seconds between two renewals while the answer is written


class Slot:
    """One slot taken; `holding(lines)` is `lines` keeping the slot while it is read, and
    giving it back once it is done or closed (the response's `close`, called by the server
    whether or not the answer was read at all)."""

    def __init__(self, key: str | None) -> None:
        self.key = key  # None: not counted (the cache could not be asked)
        self.token = secrets.token_hex(8)
        self.renewed = time.monotonic()
        self.lines = iter(())

    def holding(self, lines) -> "Slot":
        self.lines = iter(lines)
        return self

    def __iter__(self):
        return self

    def __next__(self):
        line = next(self.lines)
        if self.key is not None and time.monotonic() - self.renewed >= RENEW:
            self.renewed = time.monotonic()
            _quietly("renewed", cache.touch, self.key, LEASE)
        return line

    def close(self) -> None:
        closing = getattr(self.lines, "close", None)
        if closing is not None:
            closing()
        if self.key is not None:
            key, self.key = self.key, None
            if _quietly("read", cache.get, key) == self.token:
                _quietly("given back", cache.delete, key)


def take(kind: str, holder: str, limit: int) -> Slot | None:
    """A slot of `kind` for `holder`, or None when its `limit` slots are all held."""
    slot = Slot(None)
    keys = [f"slot:{kind}:{holder}:{index}" for index in range(limit)]
    try:
        held = cache.get_many(keys)  # one round trip; `add` alone decides who takes a free one
        for key in keys:
            if key not in held and cache.add(key, slot.token, timeout=LEASE):
                slot.key = key
                return slot
    except Exception as exc:
        logger.warning("%s slots not counted, cache unavailable: %s", kind, type(exc).__name__)
        return slot
    return None


def _quietly(what: str, call, *args):
    try:
        return call(*args)
    except Exception as exc:
        logger.warning("slot not %s, cache unavailable: %s", what, type(exc).__name__)
        return None
