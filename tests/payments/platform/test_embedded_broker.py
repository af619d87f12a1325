"""The embedded broker of `make run` (SQLite): its tables and queues are created once before the
workers start, so a first start on an empty VAR_DIR never races on `kombu_queue`."""

import sqlite3
import subprocess
import sys

from django.conf import settings

from payments.broker import prepare_embedded_broker
from payments.management.commands.runservice import prepare_broker

QUEUES = ["celery", "payments-long"]


def broker_state(path) -> tuple[list, list]:
    with sqlite3.connect(path) as db:
        tables = db.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
        queues = db.execute("SELECT id, name FROM kombu_queue ORDER BY id").fetchall()
    return tables, queues


def test_two_preparations_at_once_on_an_empty_broker_both_succeed(tmp_path):
    path = tmp_path / "broker.sqlite3"
    code = (
        "import sys; from payments.broker import prepare_embedded_broker; "
        "assert prepare_embedded_broker(sys.argv[1], sys.argv[2:])"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, f"sqla+sqlite:///{path}", *QUEUES],
            cwd=settings.BASE_DIR,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [proc.communicate(timeout=60)[0] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], outputs
    assert not any("already exists" in output for output in outputs), outputs
    tables, queues = broker_state(path)
    assert {"kombu_queue", "kombu_message"} <= {name for _, name, _ in tables}
    assert sorted(name for _, name in queues) == sorted(QUEUES)


def test_a_second_preparation_changes_nothing(tmp_path):
    path = tmp_path / "broker.sqlite3"
    url = f"sqla+sqlite:///{path}"
    assert prepare_embedded_broker(url, QUEUES) is True
    before = broker_state(path)
    assert prepare_embedded_broker(url, QUEUES) is True
    assert broker_state(path) == before


def test_runservice_prepares_the_embedded_broker_it_is_given(tmp_path, settings):
    path = tmp_path / "broker.sqlite3"
    settings.CELERY_BROKER_URL = f"sqla+sqlite:///{path}"
    prepare_broker()
    tables, queues = broker_state(path)
    assert {"kombu_queue", "kombu_message"} <= {name for _, name, _ in tables}
    assert {name for _, name in queues} == {
        "celery",
        settings.PERIODIC_QUEUE,
        settings.PAYMENTS_LONG_QUEUE,
        settings.WEBHOOKS_QUEUE,
    }


def test_other_brokers_are_left_alone(tmp_path):
    assert prepare_embedded_broker("redis://127.0.0.1:1/0", QUEUES) is False
    assert list(tmp_path.iterdir()) == []
