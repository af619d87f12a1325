"""A revoked key is refused by every web process within 5 seconds, whatever Redis and the broker
are doing: each process trusts a key it has read for API_KEY_CACHE_SECONDS at most (default 3),
then reads it again from the database (payments/api/principals.py). Here the revocation is made
by `manage.py revokeapikey` in a process that cannot reach Redis at all, so no web process is
told of it."""

import os
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime

import pytest
import time_machine
from django.conf import settings

from core.api import gate
from tests.factories import merchant_with_keys
from tests.helpers import (
    BROKER_NOBODY,
    api_client,
    assert_error,
    database_url_for_subprocess,
    free_port,
    wait_for,
)

pytestmark = pytest.mark.redis

# What the contract allows, and what a loaded machine may add (a process scheduled late).
WITHIN = 5.0
SLACK = 1.5
REFUSED = (401, "invalid_api_key")


def revoke_without_redis(plaintext: str) -> str:
    """`manage.py revokeapikey --key …` in a process whose cache and broker answer nothing."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url_for_subprocess(),
        "REDIS_URL": BROKER_NOBODY,
        "PYTHONPATH": str(settings.BASE_DIR),
    }
    done = subprocess.run(
        [sys.executable, "manage.py", "revokeapikey", "--key", plaintext],
        cwd=settings.BASE_DIR, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Revoked" in done.stdout
    assert "API key cache not invalidated" in done.stderr  # it could not tell anyone
    return done.stdout


def generation() -> int:
    return gate.ask(address="192.0.2.9", rate_ident=None, rate_text="1/s").generation


@pytest.fixture
def web_nodes(transactional_db, tmp_path):
    """Two gunicorns (production's config/gunicorn.py, one worker each) serving the test
    database with the test's Redis, as two machines would: `web_nodes(n)` starts n, each a
    callable `node(key)` → (status, error code or None)."""
    import json
    import urllib.error
    import urllib.request

    started = []

    def start(count: int):
        nodes = []
        for index in range(count):
            port = free_port()
            log = open(tmp_path / f"node{index}.log", "w")  # noqa: SIM115
            env = {
                **os.environ,
                "DATABASE_URL": database_url_for_subprocess(),
                "REDIS_URL": settings.REDIS_URL,
                "VAR_DIR": str(settings.VAR_DIR),
                "ALLOWED_HOSTS": "127.0.0.1",
                "PYTHONPATH": str(settings.BASE_DIR),
                "API_RATE_LIMIT": "100000/s",
                "LOG_LEVEL": "WARNING",
            }
            proc = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "config.wsgi", "-c", "config/gunicorn.py",
                 "--bind", f"127.0.0.1:{port}", "--workers", "1", "--threads", "2"],
                cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
            started.append((proc, log))

            def call(key: str, base=f"http://127.0.0.1:{port}"):
                request = urllib.request.Request(
                    base + "/v1/webhook_endpoint", headers={"Authorization": f"Bearer {key}"}
                )
                try:
                    # A loaded machine may answer slowly; what is checked is when a request
                    # was sent, not how long it took.
                    with urllib.request.urlopen(request, timeout=60) as response:
                        return response.status, None
                except urllib.error.HTTPError as error:
                    return error.code, json.loads(error.read())["error"]["code"]

            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.2)
            nodes.append(call)
        return nodes

    yield start
    for proc, log in started:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def test_a_key_revoked_out_of_reach_of_redis_is_refused_by_every_node_within_5_seconds(
    web_nodes,
):
    created = merchant_with_keys()
    key = created.test_key.plaintext
    nodes = web_nodes(2)
    for node in nodes:
        assert [node(key) for _ in range(3)] == [(200, None)] * 3  # read, then cached there
    before = generation()

    revoke_without_redis(key)
    revoked_at = time.monotonic()

    def refused_everywhere() -> bool:
        # Requests sent after the allowed time must all be refused, however long they take to
        # be answered; those sent before may still be accepted.
        sent_at = time.monotonic()
        answers = [node(key) for node in nodes]
        if sent_at - revoked_at > WITHIN + SLACK:
            assert answers == [REFUSED] * len(nodes), "a revoked key still accepted after 5 s"
        return answers == [REFUSED] * len(nodes)

    wait_for(refused_everywhere)
    assert generation() == before  # no process was told: each found out by itself
    assert all(node(created.live_key.plaintext) == (200, None) for node in nodes)


def test_the_process_that_cached_a_key_refuses_it_once_its_entry_is_old(transactional_db):
    assert settings.API_KEY_CACHE_SECONDS <= 4
    created = merchant_with_keys()
    client = api_client(created.test_key.plaintext)
    with time_machine.travel(datetime.now(tz=UTC), tick=False) as traveller:
        assert client.get("/v1/webhook_endpoint").status_code == 200  # read and cached
        revoke_without_redis(created.test_key.plaintext)
        # Nothing told this process: within its few seconds it still trusts what it read.
        assert client.get("/v1/webhook_endpoint").status_code == 200

        traveller.shift(settings.API_KEY_CACHE_SECONDS)
        assert_error(
            client.get("/v1/webhook_endpoint"), 401, "authentication_error", "invalid_api_key"
        )
