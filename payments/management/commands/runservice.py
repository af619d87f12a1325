"""Run the whole service on one machine: gunicorn, a Celery worker with beat embedded (the default
queue and the periodic sweeps' PERIODIC_QUEUE), a worker for the long live M-Pesa payment calls
and one for the webhook deliveries.

Production runs them as separate processes (docs/operations/production.md); this is the
one-command set-up.
"""

import signal
import subprocess
import sys
import time

from celery import current_app
from django.conf import settings
from django.core.management.base import BaseCommand

from payments.broker import prepare_embedded_broker

# gunicorn's production settings (its hooks); the command line below overrides bind and sizes.
GUNICORN_CONFIG = settings.BASE_DIR / "config" / "gunicorn.py"


class Command(BaseCommand):
    help = "Start the web server and the Celery workers with beat; stop them together."

    def add_arguments(self, parser):
        parser.add_argument("--bind", default="127.0.0.1:8000")
        parser.add_argument("--web-workers", type=int, default=2)

    def handle(self, *args, bind, web_workers, **options):
        python = sys.executable

        # The workers without their start-up banners (--quiet), and Celery's routine lines at
        # DEBUG (config.celery): the demo sign-in printed before stays in view.
        commands = {
            "worker": [
                python, "-m", "celery", "-A", "config", "--quiet", "worker", "--beat",
                "--loglevel", "INFO", "--concurrency", "2",
                "--queues", f"{current_app.conf.task_default_queue},{settings.PERIODIC_QUEUE}",
            ],
            # Live M-Pesa payment calls wait for the customer's PIN: threads, on their own queue.
            "long-calls": [
                python, "-m", "celery", "-A", "config", "--quiet", "worker", "--hostname", "long-calls@%h",
                "--queues", settings.PAYMENTS_LONG_QUEUE, "--pool", "threads",
                "--concurrency", "8", "--loglevel", "INFO",
            ],
            # Webhook deliveries wait on merchants' receivers: threads, on their own queue.
            "webhooks": [
                python, "-m", "celery", "-A", "config", "--quiet", "worker", "--hostname", "webhooks@%h",
                "--queues", settings.WEBHOOKS_QUEUE, "--pool", "threads",
                "--concurrency", "8", "--loglevel", "INFO",
            ],
            "web": [
                python, "-m", "gunicorn", "config.wsgi", "-c", str(GUNICORN_CONFIG), "--bind", bind,
                "--workers", str(web_workers), "--threads", "4",
                "--access-logfile", "-", "--graceful-timeout", "5",
            ],
        }  # fmt: skip
        prepare_broker()
        procs = {name: subprocess.Popen(cmd) for name, cmd in commands.items()}
        self.stdout.write(f"Service on http://{bind} (worker and beat running). Ctrl-C stops it.")

        def stop(*_):
            for proc in procs.values():
                if proc.poll() is None:
                    proc.terminate()

        signal.signal(signal.SIGTERM, stop)
        signal.signal(signal.SIGINT, stop)
        try:
            while all(proc.poll() is None for proc in procs.values()):
                time.sleep(0.5)
        finally:
            stop()
            deadline = time.monotonic() + 15
            for proc in procs.values():
                try:
                    proc.wait(timeout=max(0.1, deadline - time.monotonic()))
                except subprocess.TimeoutExpired:
                    proc.kill()
        failed = [name for name, proc in procs.items() if proc.returncode not in (0, -15, None)]
        if failed:
            sys.exit(f"stopped: {', '.join(failed)} exited with an error")


def prepare_broker() -> None:
    """The embedded broker's tables and queues, created before the workers start together."""
    prepare_embedded_broker(
        settings.CELERY_BROKER_URL,
        [
            current_app.conf.task_default_queue,
            settings.PERIODIC_QUEUE,
            settings.PAYMENTS_LONG_QUEUE,
            settings.WEBHOOKS_QUEUE,
        ],
    )
