"""Several machines on one PostgreSQL and Redis: the periodic sweeps on their own queue and safe
to run twice at once, a frozen session's locks freed by the database, web nodes that need nothing
of their own on disk, and a one-machine set-up only on purpose."""

import os
import signal
import subprocess
import sys
from datetime import timedelta

import pytest
from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from config.celery import app
from payments.models import Charge, Merchant
from payments.services import queues
from tests.factories import make_charge
from tests.helpers import database_url_for_subprocess, race, wait_for


def test_every_periodic_job_runs_on_the_periodic_queue():
    tasks = {entry["task"] for entry in app.conf.beat_schedule.values()}
    routed = {name: app.amqp.router.route({}, name)["queue"].name for name in tasks}
    assert set(routed.values()) == {settings.PERIODIC_QUEUE}, routed


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_claim_each_due_row_once(merchant):
    past = timezone.now() - timedelta(minutes=1)
    for _ in range(120):
        make_charge(merchant)
    Charge.objects.update(next_check_at=past, status="pending")
    due = Charge.objects.filter(status="pending")

    for _ in range(3):
        Charge.objects.update(next_check_at=past)
        claims = race(lambda: queues.due_claim(due, now=timezone.now()), count=2)
        first, second = claims
        assert not set(first) & set(second), "a row claimed by both sweeps"
        assert len(first) + len(second) == 120


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_webhook_sweeps_at_once_claim_each_lost_delivery_once(merchant):
    from tests.factories import record_event
    from webhooks.models import Delivery
    from webhooks.services import SWEEP_GRACE, deliveries_overdue

    for _ in range(60):
        record_event(merchant, url="https://receiver.example/hooks")
    overdue = timezone.now() - timedelta(seconds=SWEEP_GRACE + 60)
    for _ in range(3):
        Delivery.objects.update(next_attempt_at=overdue, status="pending", locked_until=None)
        first, second = race(deliveries_overdue, count=2)
        assert not set(first) & set(second), "a delivery claimed by both sweeps"
        assert len(first) + len(second) == Delivery.objects.count()


CHILD = """
import os, sys, time
import django
django.setup()
from django.db import transaction
from payments.models import Merchant
with transaction.atomic():
    Merchant.objects.select_for_update().get(pk=sys.argv[1])
    print("locked", flush=True)
    time.sleep(600)
"""


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_session_frozen_in_a_transaction_gives_up_its_locks(merchant):
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for_subprocess(),
        "DB_IDLE_IN_TRANSACTION_TIMEOUT": "1000",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONPATH": str(settings.BASE_DIR),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, merchant.pk],
        env=env, cwd=settings.BASE_DIR, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert child.stdout.readline().strip() == "locked"
        child.send_signal(signal.SIGSTOP)  # frozen mid-transaction, its connection open

        def lock_taken() -> bool:
            try:
                with transaction.atomic():
                    Merchant.objects.select_for_update(nowait=True).get(pk=merchant.pk)
                return True
            except OperationalError:
                return False

        assert not lock_taken()  # held by the frozen session
        wait_for(lock_taken, timeout=60)
    finally:
        child.send_signal(signal.SIGCONT)
        child.kill()
        child.wait()
        connection.close()


def _settings_of(**env) -> subprocess.CompletedProcess:
    keep = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DEBUG")}
    return subprocess.run(
        [sys.executable, "-c",
         "import django; django.setup(); from django.conf import settings; "
         "print(settings.STATIC_ROOT)"],
        env={**keep, "EMBEDDED": "", "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        cwd=settings.BASE_DIR, capture_output=True, text=True,
    )  # fmt: skip


def test_debug_off_refuses_one_machine_parts_unless_embedded(tmp_path):
    refused = _settings_of(VAR_DIR=str(tmp_path))
    assert refused.returncode != 0
    for name in ("DATABASE_URL", "REDIS_URL", "EMBEDDED=true"):
        assert name in refused.stderr
    redis_only = _settings_of(VAR_DIR=str(tmp_path), REDIS_URL="redis://127.0.0.1:6379/2")
    assert redis_only.returncode != 0 and "REDIS_URL" not in redis_only.stderr.splitlines()[-1]
    assert _settings_of(VAR_DIR=str(tmp_path), EMBEDDED="true").returncode == 0
    assert _settings_of(VAR_DIR=str(tmp_path), DEBUG="true").returncode == 0


def test_static_files_are_the_releases_not_a_nodes(tmp_path):
    answer = _settings_of(VAR_DIR=str(tmp_path / "node-var"), EMBEDDED="true")
    assert answer.returncode == 0, answer.stderr
    static_root = answer.stdout.strip()
    assert static_root.startswith(str(settings.BASE_DIR))
    assert not static_root.startswith(str(tmp_path))


@pytest.mark.postgres
@pytest.mark.books_unchecked
@pytest.mark.django_db
def test_a_statement_streams_in_flat_memory_without_server_side_cursors(api, merchant, monkeypatch):
    """As behind PgBouncer (DB_POOLER=pgbouncer): Django's QuerySet.iterator would then fetch
    every row at once; the statement is read in keyset chunks instead."""
    from tests.payments.ledger.test_statement_memory import START, _peak_while_streaming, _rows

    monkeypatch.setitem(connection.settings_dict, "DISABLE_SERVER_SIDE_CURSORS", True)
    _rows(merchant, 3_000, 0)
    _rows(merchant, 30_000, 100_000)
    small_query = "date_to=" + (START + timedelta(minutes=3_000)).isoformat().replace("+", "%2B")
    small_lines, small_peak = _peak_while_streaming(api, small_query)
    large_lines, large_peak = _peak_while_streaming(api, "")
    assert (small_lines, large_lines) == (3_000 + 1, 33_000 + 1)
    assert large_peak < 2 * small_peak, (small_peak, large_peak)


@pytest.mark.redis
def test_beat_keeps_no_file_of_its_own(tmp_path):
    """Beat started on any machine needs nothing from a disk: it sends the periodic jobs, and
    neither VAR_DIR nor its working folder holds a schedule file after it ran."""
    var_dir, cwd = tmp_path / "var", tmp_path / "cwd"
    var_dir.mkdir()
    cwd.mkdir()
    log = tmp_path / "beat.log"
    env = {
        **os.environ,
        "VAR_DIR": str(var_dir),
        "DATABASE_URL": database_url_for_subprocess(),
        "REDIS_URL": settings.REDIS_URL,
        "PYTHONPATH": str(settings.BASE_DIR),
    }
    with open(log, "w") as out:
        # Beat's ticks are said at DEBUG (config/logfilters.py): asked for here, to see them.
        beat = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "DEBUG"],
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        wait_for(lambda: "Sending due task" in log.read_text() or beat.poll() is not None, 60)
        assert beat.poll() is None, log.read_text()
    finally:
        beat.send_signal(signal.SIGTERM)
        beat.wait(30)
    left = sorted(path.name for folder in (var_dir, cwd) for path in folder.iterdir())
    assert left == [], left
