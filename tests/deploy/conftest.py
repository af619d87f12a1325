"""Debian's nginx with the deployed configuration (deploy/nginx/, made runnable here by
deploy/render.py), in front of a real gunicorn (config/gunicorn.py) serving the test database:
`nginx(upstream_port, …)` starts one in front of one gunicorn or several."""

import dataclasses
import fcntl
import os
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

from deploy.render import DEPLOY, nginx_command, nginx_prefix  # noqa: F401 (DEPLOY: tests)
from tests.helpers import database_url_for_subprocess, free_port
from tests.payments.api.conftest import server, server_workers  # noqa: F401 (fixtures)


@pytest.fixture
def one_set_of_machines_at_a_time():
    """The tests that start machines' worth of processes (several gunicorns, and Celery workers,
    behind nginx) run one at a time: with several test processes (-n), one waits here for the
    other's to end, on a lock of this run's own file."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or str(os.getpid())
    with open(Path(tempfile.gettempdir()) / f"congopay-tests-machines-{run}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


@pytest.fixture(scope="session")
def static_root(tmp_path_factory) -> Path:
    """STATIC_ROOT as production's `collectstatic` fills it (hashed, compressed names)."""
    static_root = tmp_path_factory.mktemp("release") / "staticfiles"
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"],
        cwd=settings.BASE_DIR,
        env={**os.environ, "STATIC_ROOT": str(static_root), "STATIC_MANIFEST": "true"},
        check=True,
    )
    return static_root


@pytest.fixture
def access_log(tmp_path) -> Path:
    """gunicorn's access log: one line per request that reached it."""
    return tmp_path / "gunicorn-access.log"


@pytest.fixture
def server_env(access_log) -> dict:
    """The server fixture's gunicorn as deployed behind nginx, logging each request it gets
    (with the forwarded headers it was given)."""
    log_format = '%({x-forwarded-for}i)s %({x-forwarded-proto}i)s "%(r)s" %(s)s'
    return {
        "THROTTLE_TRUSTED_PROXIES": "1",
        "GUNICORN_CMD_ARGS": shlex.join(
            ["--access-logfile", str(access_log), "--access-logformat", log_format]
        ),
    }


@pytest.fixture
def nginx(tmp_path, static_root):
    """`nginx(upstream_port, …)`: nginx as deployed (deploy/nginx/congopay.conf and its snippet,
    only its addresses changed), with its own prefix, pid, logs and temporary files here, in
    front of the gunicorn at each `upstream_port` (one upstream `server` line each); its base
    URL. It stands in for Debian's
    /etc/nginx/nginx.conf with a minimal one of its own."""
    started = []

    def start(*upstream_ports: int) -> str:
        prefix = tmp_path / f"nginx-{len(started)}"
        port = free_port()
        nginx_prefix(
            prefix,
            upstream_ports=upstream_ports,
            port=port,
            http_port=free_port(),
            static_root=static_root,
        )
        proc = subprocess.Popen(
            nginx_command(prefix), stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
        )
        started.append(proc)
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(
                        "nginx did not start:\n" + (prefix / "logs" / "error.log").read_text()
                    ) from None
                time.sleep(0.1)
        return f"http://127.0.0.1:{port}"

    yield start
    for proc in started:
        proc.terminate()
        proc.wait(timeout=10)


@dataclasses.dataclass
class WebNode:
    """One web node: a gunicorn as congopay-web.service runs it, with its own DRAIN_FILE."""

    name: str
    port: int
    proc: subprocess.Popen
    drain_file: Path
    log: Path
    env: dict
    # Set before the SIGKILL: a request the kill cuts off is known lost by it. (`proc.poll()`
    # cannot tell: it answers None while another thread is in `proc.wait()`.)
    lost: threading.Event = dataclasses.field(default_factory=threading.Event)

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """SIGKILL to gunicorn and its workers at once, as a machine lost."""
        self.lost.set()
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)


@pytest.fixture
def web_node(transactional_db, tmp_path):
    """`web_node(name, **env)`: a gunicorn (production's config/gunicorn.py, one worker of two
    threads) serving the test database on a port of its own, with DRAIN_FILE in tmp_path; started
    and answering. Whatever is still running is stopped at the end of the test."""
    started = []

    def start(name: str, **extra_env) -> WebNode:
        port = free_port()
        drain_file = tmp_path / f"{name}.draining"
        env = {
            **os.environ,
            "DATABASE_URL": database_url_for_subprocess(),
            "REDIS_URL": settings.REDIS_URL,
            "VAR_DIR": str(settings.VAR_DIR),
            "ALLOWED_HOSTS": "127.0.0.1",
            "PYTHONPATH": str(settings.BASE_DIR),
            "API_RATE_LIMIT": "100000/s",
            "LOG_LEVEL": "WARNING",
            "THROTTLE_TRUSTED_PROXIES": "1",
            "DRAIN_FILE": str(drain_file),
            "GUNICORN_BIND": f"127.0.0.1:{port}",
            "GUNICORN_WORKERS": "1",
            "GUNICORN_THREADS": "2",
            **{key: str(value) for key, value in extra_env.items()},
        }
        log_path = tmp_path / f"gunicorn-{name}.log"
        log = open(log_path, "w")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "-c", "config/gunicorn.py"],
            cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group, for kill()
        )  # fmt: skip
        started.append((proc, log))
        node = WebNode(name, port, proc, drain_file, log_path, env)
        deadline = time.monotonic() + 90
        while True:
            try:
                with urllib.request.urlopen(node.base + "/healthz", timeout=2) as answer:
                    assert answer.status == 200
                return node
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(
                        "gunicorn did not start:\n" + log_path.read_text()
                    ) from None
                time.sleep(0.2)

    yield start
    for proc, log in started:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        log.close()
