"""Latency of POST /v1/charges with an Idempotency-Key: first requests against their replays.

Starts the service (gunicorn, one worker) on 127.0.0.1 with a fresh database, creates a merchant,
sends N requests without a key, N first requests with fresh keys and a replay of each of those
keys, interleaved, and prints the medians.
Loopback only, bounded in count and time; it stops the server when done.

    .venv/bin/python bench/idempotency.py                 # temporary SQLite database
    .venv/bin/python bench/idempotency.py --requests 300
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_idem .venv/bin/python bench/idempotency.py

With DATABASE_URL the benchmark migrates and writes to that database: give it one of its own.
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
BODY = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
MAX_REQUESTS = 2000
DEADLINE_SECONDS = 300


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def manage(env: dict, *args: str) -> str:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def wait_until_up(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit("the server stopped while starting")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not start within 30 s")


def timed_post(
    session: requests.Session, url: str, key: str | None
) -> tuple[float, requests.Response]:
    headers = {"Idempotency-Key": key} if key is not None else {}
    start = time.perf_counter()
    response = session.post(url, json=BODY, headers=headers, timeout=30)
    return (time.perf_counter() - start) * 1000, response


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=200, help="first requests (and replays)")
    args = parser.parse_args()
    count = max(1, min(args.requests, MAX_REQUESTS))

    with tempfile.TemporaryDirectory(prefix="bench-idem-") as var_dir:
        env = {
            **os.environ,
            "VAR_DIR": var_dir,
            "DEBUG": "false",
            "SECRET_KEY": "bench-" + uuid.uuid4().hex * 2,
            "ALLOWED_HOSTS": "127.0.0.1",
            "API_RATE_LIMIT": "100000/s",
            "LOG_LEVEL": "WARNING",
        }
        database = "PostgreSQL" if env.get("DATABASE_URL", "").startswith("postgres") else "SQLite"
        manage(env, "migrate", "--noinput")
        merchant = json.loads(manage(env, "createmerchant", "--name", "Bench", "--json"))

        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{port}",
             "--workers", "1", "--threads", "4", "--log-level", "warning"],
            cwd=ROOT, env=env,
        )  # fmt: skip
        try:
            wait_until_up(port, server)
            session = requests.Session()
            session.headers["Authorization"] = f"Bearer {merchant['test_secret_key']}"
            url = f"{base}/v1/charges"
            deadline = time.monotonic() + DEADLINE_SECONDS

            # Warm up the worker (imports, connections) with requests that are not counted.
            for _ in range(5):
                timed_post(session, url, f"warm-{uuid.uuid4()}")

            # The three kinds are interleaved so that a change of machine load touches all alike.
            plain, first, replay = [], [], []
            for _ in range(count):
                if time.monotonic() > deadline:
                    break
                elapsed, response = timed_post(session, url, None)
                assert response.status_code == 201, response.text
                plain.append(elapsed)
                key = f"bench-{uuid.uuid4()}"
                elapsed, original = timed_post(session, url, key)
                assert original.status_code == 201, original.text
                first.append(elapsed)
                elapsed, response = timed_post(session, url, key)
                assert response.headers.get("Idempotent-Replayed") == "true", response.text
                assert response.content == original.content
                replay.append(elapsed)
        finally:
            server.terminate()
            server.wait(timeout=10)

    def line(label: str, values: list[float]) -> str:
        p95 = statistics.quantiles(values, n=20)[-1] if len(values) >= 20 else max(values)
        return (
            f"{label:<28} n={len(values):<5} median {statistics.median(values):7.2f} ms"
            f"   p95 {p95:7.2f} ms"
        )

    print(f"POST /v1/charges on {database}, gunicorn 1 worker, loopback, sequential requests")
    print(line("no Idempotency-Key", plain))
    print(line("first request (fresh key)", first))
    print(line("replay (same key and body)", replay))


if __name__ == "__main__":
    main()
