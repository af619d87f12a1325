"""Celery tasks of links: thin wrappers that call services."""

from celery import shared_task
from django.conf import settings

from links import services


@shared_task(bind=True, acks_late=True, max_retries=None)
def receipt_send(self, receipt_id: int) -> bool:
    """Mail a receipt; a mail server that refuses or cannot be reached is tried again after the
    waits of RECEIPT_RETRY_SCHEDULE, then given up (the receipt stays unsent, with its error)."""
    try:
        return services.receipt_send(receipt_id=receipt_id)
    except Exception as exc:
        schedule = settings.RECEIPT_RETRY_SCHEDULE
        if self.request.retries >= len(schedule):
            raise
        raise self.retry(exc=exc, countdown=schedule[self.request.retries]) from exc


@shared_task
def receipts_enqueue_unsent() -> int:
    """Receipts whose task was lost with the broker (beat, every five minutes)."""
    return services.receipts_enqueue_unsent()
