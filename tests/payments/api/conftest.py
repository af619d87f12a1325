"""A real gunicorn serving the test database, for what only a real server shows."""

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest
from django.conf import settings

from tests.helpers import database_url_for_subprocess, free_port


@pytest.fixture
def server_workers() -> int:
    """How many workers the server fixture's gunicorn runs (a test module may say more)."""
    return 1


@pytest.fixture
def server_env() -> dict:
    """Settings of the server fixture's gunicorn on top of the test's (a test module may say)."""
    return {}


@pytest.fixture
def server(transactional_db, tmp_path, server_workers, server_env):
    """One gunicorn (`server_workers` workers of 2 threads, production's config/gunicorn.py)
    serving the test database, with the test's cache:
    `server(key, method, path, body)` is (status, JSON body); `server.base` its address,
    `server.log` its log file, `server.pid` its master process."""
    port = free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for_subprocess(),
        "REDIS_URL": settings.REDIS_URL,
        "VAR_DIR": str(settings.VAR_DIR),  # the embedded set-up's file cache is shared this way
        "ALLOWED_HOSTS": "127.0.0.1",
        "PYTHONPATH": str(settings.BASE_DIR),
        "API_RATE_LIMIT": "100000/s",
        "LOG_LEVEL": "WARNING",
        **server_env,
    }
    log = open(tmp_path / "gunicorn.log", "w")  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "config.wsgi", "-c", "config/gunicorn.py",
         "--bind", f"127.0.0.1:{port}",
         "--workers", str(server_workers), "--threads", "2"],
        cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"

    def call(key: str, method: str = "GET", path: str = "/v1/webhook_endpoint", body=None):
        request = urllib.request.Request(
            base + path,
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    # Up once a worker answers (the master listens before its workers have loaded Django, which
    # takes longer on a loaded machine).
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            urllib.request.urlopen(base + "/healthz", timeout=10).close()
            break
        except urllib.error.HTTPError:  # an answer all the same
            break
        except OSError:
            time.sleep(0.2)
    call.base = base
    call.log = tmp_path / "gunicorn.log"
    call.pid = proc.pid
    yield call
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    log.close()
