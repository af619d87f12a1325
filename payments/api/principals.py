"""API key → principal (the key and its merchant), cached in each process for a few seconds at
most and never trusted beyond what the shared cache allows. `resolve` is API_KEY_RESOLVER, which
/v1's authentication (core/api/authentication.py) asks with the hash of the key a request carries.

An entry is read again from the database once it is API_KEY_CACHE_SECONDS old (default 3): a
revoked key is refused by every process within that time, whatever the shared cache or the broker
is doing (the process that revoked it may not have reached Redis at all). Revocation never
depends on a message arriving.

Within those seconds, every entry carries the generation of the key cache it was read under; the
generation lives in the shared cache (Redis in production) and is read by every request in its
one round trip (core/api/gate.py). Any save or deletion of an API key or a merchant (a
revocation, a staff change of live approval or the card rail, through a service, the admin or a
command) bumps the generation once it commits (and at once, for the transaction's own reads), so
while Redis can be reached every process reads every key from the database again on its next
request. When the generation cannot be read (the cache is down) nothing cached is used.

A change made with QuerySet.update() sends no signal: code that changes merchants or keys that
way must call `invalidate()` itself.
"""

import threading
import time
from dataclasses import dataclass, replace
from datetime import timedelta

from django.conf import settings
from django.db import router, transaction
from django.db.models.signals import post_delete, post_save
from django.utils import timezone

from core.api import gate
from payments.models import ApiKey, Merchant

MAX_ENTRIES = 10_000
LAST_USED_PRECISION = timedelta(minutes=1)


@dataclass(frozen=True)
class _Entry:
    """A key as read, kept as its columns' values (never as model instances, which a request
    could change): each request is given instances of its own, made from them."""

    generation: int | None
    key: tuple  # ApiKey's column values, in KEY_FIELDS order
    merchant: tuple  # its Merchant's, in MERCHANT_FIELDS order
    read_at: float  # time.time() before the read; a clock set back makes the entry read again


KEY_FIELDS = [field.attname for field in ApiKey._meta.concrete_fields]
MERCHANT_FIELDS = [field.attname for field in Merchant._meta.concrete_fields]


_entries: dict[str, _Entry] = {}
_lock = threading.Lock()


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


def resolve(key_hash: str, *, generation: int | None) -> tuple[ApiPrincipal, ApiKey] | None:
    """The principal of the active key whose hash is `key_hash`, and the key; None without one."""
    key = lookup(key_hash, generation=generation)
    if key is None:
        return None
    return ApiPrincipal(merchant=key.merchant, livemode=key.livemode, api_key=key), key


def lookup(key_hash: str, *, generation: int | None) -> ApiKey | None:
    """The active API key (its merchant loaded) whose hash is `key_hash`, or None. Its
    last_used_at is brought up to date (to the minute)."""
    if generation is None:
        # The cache is down: a key revoked meanwhile could not bump the generation, so nothing
        # cached before now may be trusted once it is back.
        _entries.clear()
    entry = _entries.get(key_hash) if generation is not None else None
    cached = (
        entry is not None
        and entry.generation == generation
        and 0 <= time.time() - entry.read_at < settings.API_KEY_CACHE_SECONDS
    )
    if not cached:
        read_at = time.time()
        api_key = (
            ApiKey.objects.select_related("merchant")
            .filter(key_hash=key_hash, revoked_at__isnull=True)
            .first()
        )
        if api_key is None:
            _entries.pop(key_hash, None)  # revoked, or never was
            return None
        entry = _Entry(generation, _values(api_key), _values(api_key.merchant), read_at)
    api_key = _instances(entry)
    now = timezone.now()
    if api_key.last_used_at is None or now - api_key.last_used_at > LAST_USED_PRECISION:
        ApiKey.objects.filter(pk=api_key.pk).update(last_used_at=now)
        api_key.last_used_at = now
        entry, cached = replace(entry, key=_values(api_key)), False
    if not cached and generation is not None:
        with _lock:
            if len(_entries) >= MAX_ENTRIES:
                _entries.clear()
            _entries[key_hash] = entry
    return api_key


def _values(instance) -> tuple:
    return tuple(getattr(instance, field.attname) for field in instance._meta.concrete_fields)


def _instances(entry: _Entry) -> ApiKey:
    """A request's own key and merchant, as loaded from the database (Model.from_db): nothing a
    request does to them reaches another."""
    db = router.db_for_read(ApiKey)
    api_key = ApiKey.from_db(db, KEY_FIELDS, entry.key)
    api_key.merchant = Merchant.from_db(db, MERCHANT_FIELDS, entry.merchant)
    return api_key


def invalidate() -> None:
    """Every process reads every key again: now, and once the current transaction commits (a
    request that read the old rows meanwhile may have cached them)."""
    gate.generation_bump()
    transaction.on_commit(gate.generation_bump, robust=True)


def _changed(sender, **kwargs) -> None:
    invalidate()


def connect() -> None:
    """Invalidate on every save or deletion of a key or a merchant (from PaymentsConfig.ready)."""
    for model in (ApiKey, Merchant):
        post_save.connect(_changed, sender=model, dispatch_uid=f"principals-{model.__name__}-save")
        post_delete.connect(_changed, sender=model, dispatch_uid=f"principals-{model.__name__}-del")
