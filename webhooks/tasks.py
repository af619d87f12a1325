"""Celery tasks of the webhooks app: one line each, calling webhooks.services."""

from celery import shared_task

from webhooks import services


@shared_task(acks_late=True)
def delivery_send(delivery_id: int, woken: bool = False) -> None:
    services.delivery_send(delivery_id=delivery_id, woken=woken)


@shared_task
def deliveries_sweep() -> int:
    return services.deliveries_sweep()
