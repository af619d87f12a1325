"""The Celery app and its beat schedule (periodic jobs)."""

import os

from celery import Celery
from celery.schedules import schedule

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Every periodic job of the service, in one place. Tasks are thin wrappers around services.
app.conf.beat_schedule = {}


def register_periodic(name: str, task: str, every_seconds: float) -> None:
    app.conf.beat_schedule[name] = {"task": task, "schedule": schedule(every_seconds)}
