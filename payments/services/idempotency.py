"""Stored Idempotency-Key answers: each is kept 24 h, then deleted by the hourly purge.
Storing and replaying them is the /v1 machinery's (payments.api.idempotency)."""

from datetime import datetime

from django.utils import timezone

from payments.models import IdempotencyRecord


def idempotency_records_purge(*, now: datetime | None = None) -> int:
    """Delete the stored answers whose 24 h are over; returns how many."""
    deleted, _ = IdempotencyRecord.objects.filter(expires_at__lte=now or timezone.now()).delete()
    return deleted
