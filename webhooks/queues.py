"""The one module that enqueues webhooks' tasks: each delivery's next attempt, on the deliveries'
own queue (WEBHOOKS_QUEUE), so a backlog of deliveries never delays payments' tasks."""

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from core.queues import enqueue


def delivery_send_enqueue(
    delivery_id: int, *, countdown: float | None = None, woken: bool = False
) -> None:
    """A task for the delivery's next attempt; `woken`: the task is the one a slot given back
    wakes (services._wake_next)."""
    eta = timezone.now() + timedelta(seconds=countdown) if countdown else None
    kwargs = {"woken": True} if woken else {}
    enqueue(
        "webhooks.tasks.delivery_send",
        delivery_id,
        kwargs=kwargs,
        queue=settings.WEBHOOKS_QUEUE,
        eta=eta,
    )
