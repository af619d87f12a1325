"""The one module that enqueues batches' tasks: paying a batch's next rows."""

from core.queues import enqueue


def batch_pay_enqueue(*, batch_id: str, countdown: float = 0) -> None:
    enqueue("batches.tasks.batch_pay", batch_id, countdown=countdown or None)
