"""The log a person reads (`make run`'s, a worker's): Celery's routine lines (beat sending each
periodic job every few seconds, each task received and succeeded) are DEBUG lines, shown only at
LOG_LEVEL=DEBUG, while failures, the workers' start and the service's own lines stay at INFO. Each
case runs in a process of its own, set up as the web processes (settings.LOGGING) or as a Celery
worker (its own handlers at --loglevel) are, so that the test's own logging is left alone."""

import os
import subprocess
import sys

import pytest
from django.conf import settings

SCRIPT = """
import logging, sys
import django
django.setup()
from config.celery import app
if sys.argv[1] == "worker":
    # What `celery worker --loglevel LEVEL` does: Celery's handlers on the root logger.
    app.log.setup(loglevel=sys.argv[2])
from celery.app.trace import LOG_RECEIVED, LOG_SUCCESS, LOG_FAILURE
task = {"name": "payments.tasks.charges_poll_due", "id": "t-1", "runtime": 0.01,
        "return_value": 0, "description": "raised unexpected", "exc": "OperationalError"}
logging.getLogger("celery.beat").info(
    "Scheduler: Sending due task %s (%s)", "charges-poll-due", "payments.tasks.charges_poll_due")
logging.getLogger("celery.worker.strategy").info(LOG_RECEIVED, task)
logging.getLogger("celery.app.trace").info(LOG_SUCCESS, task)
logging.getLogger("celery.app.trace").error(LOG_FAILURE, task)
logging.getLogger("celery.worker.consumer.consumer").info("Connected to the broker")
logging.getLogger("payments.tasks").info("charge ch_1 declined by the operator")
logging.getLogger("axes.apps").info("AXES: BEGIN version 8")
"""


def log_of(setup: str, level: str) -> str:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "LOG_LEVEL": level,
        "PYTHONPATH": str(settings.BASE_DIR),
    }
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, setup, level],
        env=env,
        cwd=settings.BASE_DIR,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@pytest.mark.parametrize("setup", ["django", "worker"])
def test_celerys_routine_lines_are_debug_and_what_a_person_needs_stays(setup):
    log = log_of(setup, "INFO")
    assert "Sending due task" not in log
    assert "received" not in log
    assert "succeeded in" not in log
    assert "AXES: BEGIN" not in log
    assert "raised unexpected: OperationalError" in log
    assert "Connected to the broker" in log
    assert "charge ch_1 declined by the operator" in log

    debug = log_of(setup, "DEBUG")
    for line in ("Scheduler: Sending due task charges-poll-due", "[t-1] received", "succeeded in"):
        (said,) = [row for row in debug.splitlines() if line in row]
        assert "DEBUG" in said and "INFO" not in said


def test_make_runs_workers_start_without_their_banners():
    from payments.management.commands import runservice

    source = open(runservice.__file__).read()
    assert source.count('"-m", "celery", "-A", "config", "--quiet", "worker"') == 3
