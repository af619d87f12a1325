"""Celery tasks of checkout: thin wrappers that call services."""

from celery import shared_task

from checkout import services


@shared_task
def sessions_expire_due() -> int:
    """Expire open sessions whose expires_at has passed (beat, every minute)."""
    return services.sessions_expire_due()


@shared_task
def phone_prompts_forget() -> int:
    """Forget the prompt counts of phones not prompted lately (beat, hourly)."""
    return services.phone_prompts_forget()
