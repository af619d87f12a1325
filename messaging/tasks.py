"""Celery tasks of messaging: thin wrappers that call services."""

from celery import shared_task

from messaging import services


@shared_task(bind=True, acks_late=True, max_retries=None)
def sms_send(self, message_id: str) -> bool:
    """Send a message; one the vendor could not take is tried again after the waits of
    SMS_RETRY_SCHEDULE (the row holds the count), then marked failed."""
    try:
        return services.sms_send(message_id=message_id)
    except services.SendLater as exc:
        raise self.retry(countdown=exc.countdown, exc=exc) from exc


@shared_task
def messages_sweep() -> int:
    """Messages whose task was lost with the broker (beat, every minute)."""
    return services.messages_sweep()
