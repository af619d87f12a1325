"""The Celery app and its beat schedule (periodic jobs)."""

import os

from celery import Celery
from celery.signals import after_setup_logger, task_postrun, task_prerun
from django.conf import settings
from django.db import close_old_connections, connection

from config.logfilters import RoutineAtDebug

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@after_setup_logger.connect
def routine_lines_at_debug(logger=None, **kwargs):
    """A worker's log (Celery sets up its own handlers, at --loglevel): beat's ticks and each
    task received and succeeded at DEBUG, as config.settings.LOGGING has them, so that
    `make run`'s log keeps what a person needs in view (its demo sign-in first)."""
    for handler in logger.handlers:
        if not any(isinstance(f, RoutineAtDebug) for f in handler.filters):
            handler.addFilter(RoutineAtDebug())


@task_prerun.connect
@task_postrun.connect
def _database_connections_as_around_a_request(task=None, **kwargs):
    """A task treats its database connection as Django treats one around a request: kept for
    DB_CONN_MAX_AGE, health-checked, and closed once it has failed. (Celery's own default, a new
    connection for every task, costs more than a webhook delivery; CELERY_DB_REUSE_MAX in the
    settings leaves that to this.)"""
    if getattr(getattr(task, "request", None), "is_eager", False) or connection.in_atomic_block:
        return  # run inline by a caller (tests): its connection and transaction are its own
    close_old_connections()


# Every periodic job of the service, in one place (seconds between runs). Tasks are thin
# wrappers around services. The schedule is this code, the same on every machine, and beat keeps
# when each job last ran in its own memory, in no file (CELERY_BEAT_SCHEDULER). Every job is safe
# to run twice at once (each claims its rows under a row lock, skipping those another run holds),
# so two beats, or a beat restarted elsewhere, enqueue nothing twice.
app.conf.beat_schedule = {
    "charges-poll-due": {"task": "payments.tasks.charges_poll_due", "schedule": 5.0},
    "refunds-poll-due": {"task": "payments.tasks.refunds_poll_due", "schedule": 5.0},
    "charges-reconcile-due": {"task": "payments.tasks.charges_reconcile_due", "schedule": 5.0},
    "charges-extra-payments-check-due": {
        "task": "payments.tasks.charges_extra_payments_check_due",
        "schedule": 30.0,
    },
    "payouts-send-unsent": {"task": "payments.tasks.payouts_send_unsent", "schedule": 10.0},
    "payouts-poll-due": {"task": "payments.tasks.payouts_poll_due", "schedule": 5.0},
    "settlements-send-unsent": {
        "task": "payments.tasks.settlements_send_unsent",
        "schedule": 10.0,
    },
    "settlements-poll-due": {"task": "payments.tasks.settlements_poll_due", "schedule": 5.0},
    "settlements-schedule-due": {
        "task": "payments.tasks.settlements_schedule_due",
        "schedule": 60.0,
    },
    # Operator statements dropped in RECONCILE_FOLDER (nothing to do when it is not set).
    "statements-from-folder": {
        "task": "payments.tasks.statements_from_folder",
        "schedule": 300.0,
    },
    "checkout-sessions-expire-due": {
        "task": "checkout.tasks.sessions_expire_due",
        "schedule": 60.0,
    },
    "checkout-phone-prompts-forget": {
        "task": "checkout.tasks.phone_prompts_forget",
        "schedule": 3600.0,
    },
    "idempotency-records-purge": {
        "task": "payments.tasks.idempotency_records_purge",
        "schedule": 3600.0,
    },
    "webhooks-sweep": {"task": "webhooks.tasks.deliveries_sweep", "schedule": 30.0},
    "receipts-enqueue-unsent": {"task": "links.tasks.receipts_enqueue_unsent", "schedule": 300.0},
    "payout-batches-resume": {"task": "batches.tasks.batches_resume", "schedule": 10.0},
    "messages-sweep": {"task": "messaging.tasks.messages_sweep", "schedule": 60.0},
    # A payment notice within a minute of the payment (docs/guides/notifications.md).
    "notices-send": {"task": "dashboard.tasks.notices_send", "schedule": 15.0},
    "summaries-send": {"task": "dashboard.tasks.summaries_send", "schedule": 300.0},
}
# The sweeps run on their own queue, so a backlog of ordinary tasks never delays them.
app.conf.task_routes = {
    entry["task"]: {"queue": settings.PERIODIC_QUEUE} for entry in app.conf.beat_schedule.values()
}
