"""Celery tasks of the webhooks app: thin wrappers around webhooks.services."""

from celery import shared_task
from django.utils import timezone

from webhooks import services
from webhooks.models import DeliveryStatus


@shared_task(acks_late=True)
def delivery_send(delivery_id: int) -> None:
    """One attempt; a failed one schedules the next on WEBHOOK_RETRY_SCHEDULE."""
    delivery = services.delivery_attempt(delivery_id=delivery_id)
    if delivery and delivery.status == DeliveryStatus.PENDING and delivery.next_attempt_at:
        wait = (delivery.next_attempt_at - timezone.now()).total_seconds()
        delivery_send.apply_async((delivery_id,), countdown=max(0.0, wait))


@shared_task
def deliveries_sweep() -> int:
    """Enqueue every delivery whose task was lost. Nothing sent is ever lost, only delayed."""
    ids = services.deliveries_overdue()
    for delivery_id in ids:
        delivery_send.delay(delivery_id)
    return len(ids)
