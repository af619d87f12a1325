"""Celery tasks of the dashboard: thin wrappers that call services (beat, config/celery.py)."""

from celery import shared_task

from dashboard import notifications


@shared_task
def notices_send() -> int:
    """The merchants' grouped notices that may go now (beat, every 15 seconds)."""
    return notifications.notices_send()


@shared_task
def summaries_send() -> int:
    """The daily summaries due (beat, every 5 minutes)."""
    return notifications.summaries_send()
