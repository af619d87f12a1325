"""Liveness and readiness. `/healthz` answers 200 as long as the process answers, whatever the
database or the broker do (a supervisor restarting it would cure neither). `/readyz` answers 503
while the database does not answer or while the node drains (DRAIN_FILE exists), else 200; it
shows the broker's state without being decided by it (the API keeps taking payments without
Redis). Checked in-process, and against real gunicorns with gunicorn's stock worker whose
database or broker answer nothing, and one drained and then stopped as a deploy would."""

import contextlib
import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from django.conf import settings
from django.test import Client

from tests.helpers import database_url_for_subprocess, free_port, wait_for

pytestmark = pytest.mark.django_db

NOWHERE = "127.0.0.1:9"  # the discard port: nothing listens there


def get(client: Client, path: str):
    response = client.get(path)
    return response.status_code, json.loads(response.content)


def test_liveness_and_readiness_when_all_is_well():
    client = Client()
    assert get(client, "/healthz") == (200, {"status": "ok", "checks": {}})
    assert get(client, "/readyz") == (
        200,
        {"status": "ok", "checks": {"database": True, "broker": True}},
    )
    assert client.head("/readyz").status_code == 200
    assert client.head("/healthz").status_code == 200
    assert client.post("/readyz").status_code == 405


def test_a_draining_node_is_not_ready_but_alive(settings, tmp_path):
    settings.DRAIN_FILE = str(tmp_path / "draining")
    client = Client()
    assert get(client, "/readyz")[0] == 200
    (tmp_path / "draining").touch()
    assert get(client, "/readyz") == (
        503,
        {"status": "draining", "checks": {"database": True, "broker": True}},
    )
    assert get(client, "/healthz") == (200, {"status": "ok", "checks": {}})
    (tmp_path / "draining").unlink()
    assert get(client, "/readyz")[0] == 200


def test_both_are_answered_over_plain_http_when_https_is_enforced(settings):
    """A balancer and a supervisor probe the node itself, over plain HTTP."""
    settings.SECURE_SSL_REDIRECT = True
    client = Client()
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200
    assert client.get("/v1/charges").status_code == 301


# --- Real servers ----------------------------------------------------------------------------


@contextlib.contextmanager
def gunicorn(tmp_path, **env):
    """A gunicorn with its stock threaded worker (2 workers of 2 threads) serving the test
    database and broker, `env` on top; yields its address and process once it answers."""
    port = free_port()
    environment = {
        **os.environ,
        "DATABASE_URL": database_url_for_subprocess(),
        "REDIS_URL": settings.REDIS_URL,
        "VAR_DIR": str(settings.VAR_DIR),
        "ALLOWED_HOSTS": "127.0.0.1",
        "PYTHONPATH": str(settings.BASE_DIR),
        "LOG_LEVEL": "WARNING",
        **env,
    }
    log = open(tmp_path / f"gunicorn-{port}.log", "w")  # noqa: SIM115
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "--worker-class", "gthread",
         "--workers", "2", "--threads", "2", "--bind", f"127.0.0.1:{port}"],
        cwd=settings.BASE_DIR, env=environment, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        wait_for(lambda: ask(base, "/healthz")[0] == 200 or process.poll() is not None, 60)
        assert process.poll() is None, (tmp_path / f"gunicorn-{port}.log").read_text()
        yield base, process
    finally:
        if process.poll() is None:
            process.terminate()
            process.wait(timeout=30)
        log.close()


def ask(base: str, path: str) -> tuple[int, dict | None]:
    """A probe's request on a connection of its own: (status, JSON body), or (0, None) when
    nothing answers."""
    try:
        with urllib.request.urlopen(base + path, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())
    except OSError:
        return 0, None


def test_without_the_broker_the_node_stays_alive_and_ready(tmp_path):
    with gunicorn(tmp_path, REDIS_URL=f"redis://{NOWHERE}/0") as (base, _process):
        assert ask(base, "/healthz") == (200, {"status": "ok", "checks": {}})
        assert ask(base, "/readyz") == (
            200,
            {"status": "ok", "checks": {"database": True, "broker": False}},
        )


def test_without_the_database_the_node_is_alive_but_not_ready(tmp_path):
    database = f"postgres://postgres@{NOWHERE}/payments"
    with gunicorn(tmp_path, DATABASE_URL=database) as (base, _process):
        assert ask(base, "/healthz") == (200, {"status": "ok", "checks": {}})
        assert ask(base, "/readyz") == (
            503,
            {"status": "unavailable", "checks": {"database": False, "broker": True}},
        )


def test_a_deploy_drains_the_node_then_stops_it(tmp_path):
    """The stop step of a deploy: create the drain file, wait until the balancer's probes see
    503 (every worker reads the same file), then SIGTERM; gunicorn stops cleanly."""
    drain = tmp_path / "draining"
    with gunicorn(tmp_path, DRAIN_FILE=str(drain)) as (base, process):
        assert [ask(base, "/readyz")[0] for _ in range(10)] == [200] * 10
        drain.touch()
        probes = [ask(base, "/readyz") for _ in range(10)]
        assert all(probe == (503, {"status": "draining", "checks": {"database": True,
                   "broker": True}}) for probe in probes), probes  # fmt: skip
        assert ask(base, "/healthz")[0] == 200  # its supervisor leaves it be meanwhile
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 0
