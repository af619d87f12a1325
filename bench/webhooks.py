"""Benchmark (not a test): N events delivered to a local receiver; prints events/s and the median
time from the state change (commit) to the receiver having a verified delivery.

    .venv/bin/python bench/webhooks.py                 # in-process delivery, 8 threads
    .venv/bin/python bench/webhooks.py --worker        # a real Celery worker (threads pool)
    REDIS_URL=redis://127.0.0.1:6379/15 .venv/bin/python bench/webhooks.py --worker

Loopback only (the receiver listens on 127.0.0.1), bounded (at most 5000 events). It uses a fresh
SQLite database and embedded broker in a temporary folder unless DATABASE_URL is set.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("VAR_DIR", tempfile.mkdtemp(prefix="bench-webhooks-"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from standardwebhooks import Webhook  # noqa: E402

from payments.services.accounts import merchant_create  # noqa: E402
from webhooks.services import delivery_attempt, event_record  # noqa: E402

MAX_EVENTS = 5000


class Receiver:
    def __init__(self, secret: str) -> None:
        self.webhook = Webhook(secret)
        self.arrived: dict[str, float] = {}
        self.bad = 0
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.expected = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    receiver.webhook.verify(body, {k.lower(): v for k, v in self.headers.items()})
                    ok = True
                except Exception:
                    ok = False
                with receiver.lock:
                    if ok:
                        receiver.arrived.setdefault(self.headers["webhook-id"], time.time())
                    else:
                        receiver.bad += 1
                    if len(receiver.arrived) >= receiver.expected:
                        receiver.done.set()
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def start_worker(concurrency: int) -> subprocess.Popen:
    from config.celery import app

    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "threads",
         "--concurrency", str(concurrency), "--loglevel", "WARNING", "--without-gossip",
         "--without-mingle"],
        cwd=ROOT, env=os.environ.copy(),
    )  # fmt: skip
    if not os.environ.get("REDIS_URL"):
        return proc  # the embedded broker has no ping: the warm-up event shows it is running
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if app.control.ping(timeout=0.5):
            return proc
    proc.terminate()
    raise SystemExit("the worker did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--events", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--worker", action="store_true", help="deliver through a Celery worker")
    args = parser.parse_args()
    n = max(1, min(args.events, MAX_EVENTS))

    call_command("migrate", verbosity=0)
    created = merchant_create(name="Bench")
    merchant = created.merchant
    receiver = Receiver(created.test_webhook_secret)

    worker = start_worker(args.concurrency) if args.worker else None
    pool = None if worker else ThreadPoolExecutor(max_workers=args.concurrency)

    def deliver(delivery_id: int) -> None:
        try:
            delivery_attempt(delivery_id=delivery_id)
        finally:
            connection.close()

    committed_at: list[float] = []

    def record(i: int) -> str:
        with transaction.atomic():
            # Runs first after the commit, before the delivery is handed on.
            transaction.on_commit(lambda: committed_at.append(time.time()))
            event = event_record(
                merchant=merchant,
                livemode=False,
                type="charge.succeeded",
                data={"id": f"ch_bench{i}", "object": "charge", "amount": 5000, "currency": "CDF"},
                destination_url=receiver.url,
            )
            delivery_id = event.deliveries.get().id
            if pool is not None:
                transaction.on_commit(lambda d=delivery_id: pool.submit(deliver, d))
        return event.id

    # One warm-up event, not counted: the worker is up and connections are open.
    receiver.expected = 1
    record(-1)
    if not receiver.done.wait(timeout=60):
        raise SystemExit("the warm-up event was not delivered within 60 s")
    receiver.arrived.clear()
    receiver.done.clear()
    receiver.expected = n

    changed: dict[str, float] = {}
    started = time.time()
    for i in range(n):
        event_id = record(i)
        changed[event_id] = committed_at[-1]  # the state change is visible from here on
    finished = receiver.done.wait(timeout=120)
    if pool is not None:
        pool.shutdown()
    if worker is not None:
        worker.terminate()
        worker.wait(timeout=10)
    receiver.server.shutdown()

    latencies = [receiver.arrived[e] - changed[e] for e in changed if e in receiver.arrived]
    elapsed = max(receiver.arrived.values(), default=started) - started
    broker = "Redis" if os.environ.get("REDIS_URL") else "embedded SQLite broker"
    mode = (
        f"Celery worker ({broker}, threads x{args.concurrency})"
        if worker
        else (f"in-process delivery function (threads x{args.concurrency})")
    )
    print(f"mode: {mode}; database: {connection.vendor}")
    print(f"delivered {len(receiver.arrived)}/{n} verified events, {receiver.bad} bad signatures")
    if not finished:
        print("WARNING: not every event arrived within 120 s")
    print(f"throughput: {len(receiver.arrived) / elapsed:.1f} events/s")
    if latencies:
        print(f"state change -> delivered: median {statistics.median(latencies) * 1000:.1f} ms, "
              f"p95 {statistics.quantiles(latencies, n=20)[-1] * 1000:.1f} ms")  # fmt: skip


if __name__ == "__main__":
    main()
