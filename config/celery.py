"""The Celery app and its beat schedule (periodic jobs)."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Every periodic job of the service, in one place (seconds between runs). Tasks are thin
# wrappers around services.
app.conf.beat_schedule = {
    "charges-poll-due": {"task": "payments.tasks.charges_poll_due", "schedule": 5.0},
    "refunds-poll-due": {"task": "payments.tasks.refunds_poll_due", "schedule": 5.0},
    "charges-reconcile-due": {"task": "payments.tasks.charges_reconcile_due", "schedule": 5.0},
    "payouts-send-unsent": {"task": "payments.tasks.payouts_send_unsent", "schedule": 10.0},
    "payouts-poll-due": {"task": "payments.tasks.payouts_poll_due", "schedule": 5.0},
    "checkout-sessions-expire-due": {
        "task": "checkout.tasks.sessions_expire_due",
        "schedule": 60.0,
    },
    "idempotency-records-purge": {
        "task": "payments.tasks.idempotency_records_purge",
        "schedule": 3600.0,
    },
    "webhooks-sweep": {"task": "webhooks.tasks.deliveries_sweep", "schedule": 30.0},
}
