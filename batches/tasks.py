"""Celery tasks: one line each, calling a service."""

from celery import shared_task

from batches import services


@shared_task(acks_late=True)
def batch_pay(batch_id: str) -> int:
    return services.batch_pay(batch_id=batch_id)


@shared_task
def batches_resume() -> int:
    return services.batches_resume()
