"""`make run` as it is on a fresh machine: the embedded set-up (SQLite database, SQLite broker,
a real Celery worker with beat and the long-calls worker, gunicorn) started by runservice on an
empty VAR_DIR settles a sandbox mobile money charge and delivers its event, with a clean log.

It brings its own database and broker, so it runs the same with or without PostgreSQL/Redis."""

import json
import os
import signal
import socket
import subprocess
import sys
import urllib.request

from django.conf import settings

from tests.fakes import merchant as merchant_site
from tests.helpers import wait_for

# Lines of the first start that the broker preparation and a clean shutdown rule out.
BAD_LOG = ("already exists", "Connection to broker lost", "Traceback", "CRITICAL")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_make_run_settles_a_sandbox_charge_on_the_embedded_broker(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
        "VAR_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "REDIS_URL": "",
        "DEBUG": "true",  # as make run
        "PUBLIC_BASE_URL": base,
        "SANDBOX_MOBILE_MONEY_DELAY": "1",
        "PYTHONPATH": str(settings.BASE_DIR),
    }
    manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
    for command in (["migrate", "--noinput"], ["demomerchant"]):
        subprocess.run([*manage, *command], env=env, check=True, capture_output=True, timeout=120)
    demo = json.loads((tmp_path / "demo-merchant.json").read_text())
    key = demo["test_secret_key"]
    assert not (tmp_path / "broker.sqlite3").exists()

    def call(method: str, path: str, body: dict | None = None) -> dict:
        request = urllib.request.Request(
            base + path,
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def up() -> bool:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    log_path = tmp_path / "service.log"
    # The merchant's receiver checks each delivery's signature with the demo merchant's secret.
    with open(log_path, "w") as log, merchant_site.serving(demo["webhook_secret"]) as receiver:
        service = subprocess.Popen(
            [*manage, "runservice", "--bind", f"127.0.0.1:{port}", "--web-workers", "1"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for(up, 30)
            call("POST", "/v1/webhook_endpoint", {"url": receiver.url("/hook")})
            charge = call(
                "POST",
                "/v1/charges",
                {"amount": 250000, "currency": "CDF", "phone": "+243812345678",
                 "network": "VODACOM_MPESA"},
            )  # fmt: skip
            assert charge["status"] == "pending"
            settled = wait_for(
                lambda: (
                    (body := call("GET", f"/v1/charges/{charge['id']}"))["status"] != "pending"
                    and body
                ),
                30,
            )
            assert settled["status"] == "succeeded", settled
            events = call("GET", "/v1/events")["data"]
            assert [e["type"] for e in events if e["data"]["object"]["id"] == charge["id"]] == [
                "charge.succeeded"
            ]
            delivered = wait_for(
                lambda: [
                    r.verified
                    for r in receiver.verified()
                    if r.verified["data"]["object"]["id"] == charge["id"]
                ],
                30,
            )
            assert [e["type"] for e in delivered] == ["charge.succeeded"]
            assert len(receiver.received) == len(receiver.verified())  # every delivery signed
        finally:
            service.send_signal(signal.SIGTERM)
            service.wait(timeout=30)
    output = log_path.read_text()
    assert service.returncode == 0, output
    assert "ready." in output, output
    assert not [line for line in output.splitlines() if any(bad in line for bad in BAD_LOG)]
