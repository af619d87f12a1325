"""The one module that enqueues links' tasks: a completed session's receipt by e-mail."""

from core.queues import enqueue


def receipt_send_enqueue(receipt_id: int) -> None:
    enqueue("links.tasks.receipt_send", receipt_id)
