"""Idempotent POSTs: one operation per Idempotency-Key, its 2xx answer replayed.

Every POST under /v1 that carries `Idempotency-Key`
  1. looks for a stored answer first, without claiming anything: once the first request has
     answered, every later one (however many arrive at once) gets the replay (same endpoint and
     body) or 400 reused (another endpoint or body), never 409;
  2. otherwise, inside one database transaction, claims the key (PostgreSQL: a transaction-scoped
     advisory lock). Held by another request: that request is still running, so 409, unless its
     answer has been committed in the meantime (then it is replayed). Claimed: the stored answer is
     looked for once more (the first may have committed between step 1 and the claim);
  3. runs the operation and, if it answered 2xx, stores the answer before the commit.
The operation's writes and the stored answer therefore commit together or not at all: a crash
can never leave an operation without its answer (which a retry would repeat), and an error leaves
nothing behind, so a retry with the same key runs again. Work that leaves the service (tasks,
prompts, webhooks) is started on commit, so it happens once.

PostgreSQL makes a committed transaction's rows visible before it releases its advisory locks, so
a request that finds the key held and no stored answer knows the first one is truly still running.
On SQLite the transaction takes the write lock at BEGIN, so requests with one key run one after
the other: the second finds the first's answer. The unique constraint on the scope is the backstop
where writes are not serialised.

The answers are stored in the model named by IDEMPOTENCY_RECORD_MODEL ("app_label.ModelName"): a
concrete IdempotencyRecord (below) that adds who the key belongs to, `merchant` (the principal's,
a foreign key to the app's own model), and the constraint that makes (merchant, livemode, key)
unique. Each answer is kept 24 h, then deleted by the hourly purge (purge_expired).
"""

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.apps import apps
from django.conf import settings
from django.db import IntegrityError, connection, models, transaction
from django.http import HttpResponse, HttpResponseBase
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from config.gunicorn import REPEATED_HEADERS_META
from core.errors import IdempotencyKeyInUse, IdempotencyKeyInvalid, IdempotencyKeyReused

HEADER = "HTTP_IDEMPOTENCY_KEY"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_KEY_LENGTH = 255
# What key_from_header takes, as it arrives over HTTP (where a header value's leading and trailing
# spaces are not part of it): printable ASCII, neither beginning nor ending with a space.
KEY_PATTERN = rf"^[!-~]([ -~]{{0,{MAX_KEY_LENGTH - 2}}}[!-~])?$"
LIFETIME = timedelta(hours=24)


class IdempotencyRecord(models.Model):
    """The stored answer to a POST made with an Idempotency-Key."""

    livemode = models.BooleanField()
    key = models.CharField(max_length=MAX_KEY_LENGTH)
    method = models.CharField(max_length=10)
    path = models.CharField(max_length=500)
    request_fingerprint = models.CharField(max_length=64)
    response_status = models.PositiveSmallIntegerField()
    response_body = models.BinaryField()
    response_content_type = models.CharField(max_length=100, default="application/json")
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return self.key


def record_model() -> type[IdempotencyRecord]:
    """The concrete IdempotencyRecord, named by IDEMPOTENCY_RECORD_MODEL."""
    return apps.get_model(settings.IDEMPOTENCY_RECORD_MODEL)


@dataclass(frozen=True)
class Scope:
    """One idempotent request: who, in which mode, with which key, asking what."""

    merchant: models.Model
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


def scope_for(request, *, merchant: models.Model, livemode: bool) -> Scope | None:
    """The idempotency scope of a POST, or None when it carries no key. A key sent in two
    headers is refused: the server joins them into one value (`a,b`), a key of neither."""
    if "IDEMPOTENCY-KEY" in request.META.get(REPEATED_HEADERS_META, "").split(","):
        raise IdempotencyKeyInvalid(
            gettext_noop("Idempotency-Key was given more than once: send one key per request."),
            param="Idempotency-Key",
        )
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
    record = _stored_answer(scope)
    if record is not None:  # the first request has answered: no claim, no lock, no 409
        return _replay(record, scope)
    try:
        with transaction.atomic():
            if not _claim(scope):
                record = _stored_answer(scope)  # committed since our first look?
                if record is None:
                    raise IdempotencyKeyInUse()
                return _replay(record, scope)
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
        record = _stored_answer(scope)
        if record is None:
            raise IdempotencyKeyInUse() from None
        return _replay(record, scope)


def _lock_id(scope: Scope) -> int:
    digest = hashlib.sha256(
        f"idempotency:{scope.merchant.pk}:{int(scope.livemode)}:{scope.key}".encode()
    ).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _claim(scope: Scope) -> bool:
    """Hold the key for the rest of this transaction; False while another request holds it."""
    if connection.vendor != "postgresql":
        return True  # SQLite: BEGIN IMMEDIATE already serialises writers
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [_lock_id(scope)])
        (acquired,) = cursor.fetchone()
    return bool(acquired)


def _records(scope: Scope):
    """The record of a scope (merchant, mode, key: unique), as a queryset."""
    return record_model().objects.filter(
        merchant=scope.merchant, livemode=scope.livemode, key=scope.key
    )


def _stored_answer(scope: Scope) -> IdempotencyRecord | None:
    """The answer stored under the key and still within its 24 h; a read that claims nothing."""
    return _records(scope).filter(expires_at__gt=timezone.now()).first()


def _live_record(scope: Scope) -> IdempotencyRecord | None:
    """The stored answer, for the request that holds the key: one past its 24 h is deleted, so
    that the key is free again (the purge task may not have run yet)."""
    record = _records(scope).first()
    if record is not None and record.expires_at <= timezone.now():
        record.delete()
        return None
    return record


def _replay(record: IdempotencyRecord, scope: Scope) -> HttpResponse:
    if record.method != scope.method or record.path != scope.path:
        raise IdempotencyKeyReused(
            _("This Idempotency-Key was already used for %(method)s %(path)s.")
            % {"method": record.method, "path": record.path},
            param="Idempotency-Key",
        )
    if record.request_fingerprint != scope.fingerprint:
        raise IdempotencyKeyReused(
            _("This Idempotency-Key was already used with another request body."),
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
        # No savepoint: a conflict ends the whole transaction (the caller rolls it back).
        with transaction.atomic(savepoint=False):
            record_model().objects.create(
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


def purge_expired(*, now: datetime | None = None) -> int:
    """Delete the stored answers whose 24 h are over; returns how many."""
    expired = record_model().objects.filter(expires_at__lte=now or timezone.now())
    return expired.delete()[0]
