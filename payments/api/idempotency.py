"""Idempotent POSTs (contract §8): one operation per Idempotency-Key, its 2xx answer replayed.

Every POST under /v1 that carries `Idempotency-Key` runs inside one database transaction that
  1. claims the key (PostgreSQL: a transaction-scoped advisory lock; held by another request → 409),
  2. looks for a stored answer (same endpoint and body → replay it; otherwise → 400 reused),
  3. runs the operation and, if it answered 2xx, stores the answer before the commit.
The operation's writes and the stored answer therefore commit together or not at all: a crash
can never leave an operation without its answer (which a retry would repeat), and an error leaves
nothing behind, so a retry with the same key runs again. Work that leaves the service (tasks,
prompts, webhooks) is started on commit, so it happens once.

On SQLite the transaction takes the write lock at BEGIN, so requests with one key run one after
the other: the second finds the first's answer. The unique constraint on the scope is the backstop
where writes are not serialised.
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta

from django.db import IntegrityError, connection, transaction
from django.http import HttpResponse, HttpResponseBase
from django.utils import timezone

from payments.errors import IdempotencyKeyInUse, IdempotencyKeyInvalid, IdempotencyKeyReused
from payments.models import IdempotencyRecord, Merchant

HEADER = "HTTP_IDEMPOTENCY_KEY"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
LIFETIME = timedelta(hours=24)


@dataclass(frozen=True)
class Scope:
    """One idempotent request: who, in which mode, with which key, asking what."""

    merchant: Merchant
    livemode: bool
    key: str
    method: str
    path: str
    fingerprint: str


class _StoredElsewhere(Exception):
    """Another request stored an answer under this key first; ours must not commit."""


def key_from_header(raw: str | None) -> str | None:
    """The Idempotency-Key of a request, None if absent; a malformed one is refused."""
    if raw is None:
        return None
    if not 1 <= len(raw) <= MAX_KEY_LENGTH or not all(" " <= char <= "~" for char in raw):
        raise IdempotencyKeyInvalid(param="Idempotency-Key")
    return raw


def fingerprint(data) -> str:
    """The request body compared after parsing: key order and spacing do not matter."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def scope_for(request, *, merchant: Merchant, livemode: bool) -> Scope | None:
    """The idempotency scope of a POST, or None when it carries no key."""
    key = key_from_header(request.META.get(HEADER))
    if key is None:
        return None
    return Scope(
        merchant=merchant,
        livemode=livemode,
        key=key,
        method=request.method,
        path=request.path,
        fingerprint=fingerprint(request.data),
    )


def run(*, scope: Scope, operation: Callable[[], HttpResponseBase]) -> HttpResponseBase:
    """Answer the request once: replay a stored answer, or run `operation` and store its answer."""
    try:
        with transaction.atomic():
            _claim(scope)
            record = _live_record(scope)
            if record is not None:
                return _replay(record, scope)
            response = operation()
            if 200 <= response.status_code < 300:
                _store(scope, response)
            else:
                transaction.set_rollback(True)
            return response
    except _StoredElsewhere:
        record = _live_record(scope)
        if record is None:
            raise IdempotencyKeyInUse() from None
        return _replay(record, scope)


def _lock_id(scope: Scope) -> int:
    digest = hashlib.sha256(
        f"idempotency:{scope.merchant.pk}:{int(scope.livemode)}:{scope.key}".encode()
    ).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _claim(scope: Scope) -> None:
    """Hold the key for the rest of this transaction; 409 while another request holds it."""
    if connection.vendor != "postgresql":
        return  # SQLite: BEGIN IMMEDIATE already serialises writers
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [_lock_id(scope)])
        (acquired,) = cursor.fetchone()
    if not acquired:
        raise IdempotencyKeyInUse()


def _live_record(scope: Scope) -> IdempotencyRecord | None:
    record = IdempotencyRecord.objects.filter(
        merchant=scope.merchant, livemode=scope.livemode, key=scope.key
    ).first()
    if record is not None and record.expires_at <= timezone.now():
        # Past its 24 h the key is free again; the purge task may not have run yet.
        IdempotencyRecord.objects.filter(pk=record.pk).delete()
        return None
    return record


def _replay(record: IdempotencyRecord, scope: Scope) -> HttpResponse:
    if record.method != scope.method or record.path != scope.path:
        raise IdempotencyKeyReused(
            f"This Idempotency-Key was already used for {record.method} {record.path}.",
            param="Idempotency-Key",
        )
    if record.request_fingerprint != scope.fingerprint:
        raise IdempotencyKeyReused(
            "This Idempotency-Key was already used with another request body.",
            param="Idempotency-Key",
        )
    response = HttpResponse(
        bytes(record.response_body),
        status=record.response_status,
        content_type=record.response_content_type,
    )
    response[REPLAYED_HEADER] = "true"
    return response


def _store(scope: Scope, response: HttpResponseBase) -> None:
    if hasattr(response, "render"):
        response.render()
    now = timezone.now()
    try:
        with transaction.atomic():
            IdempotencyRecord.objects.create(
                merchant=scope.merchant,
                livemode=scope.livemode,
                key=scope.key,
                method=scope.method,
                path=scope.path,
                request_fingerprint=scope.fingerprint,
                response_status=response.status_code,
                response_body=bytes(response.content),
                response_content_type=response.get("Content-Type", "application/json"),
                created_at=now,
                expires_at=now + LIFETIME,
            )
    except IntegrityError:
        raise _StoredElsewhere() from None


def records_purge_expired(*, now=None) -> int:
    """Delete the stored answers whose 24 h are over; returns how many."""
    deleted, _ = IdempotencyRecord.objects.filter(expires_at__lte=now or timezone.now()).delete()
    return deleted
