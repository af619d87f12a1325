"""The one module that enqueues messaging's tasks: a message's sending."""

from core.queues import enqueue


def sms_send_enqueue(message_id: str, *, countdown: float | None = None) -> None:
    enqueue("messaging.tasks.sms_send", message_id, countdown=countdown)
