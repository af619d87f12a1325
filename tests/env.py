"""Loaded by pytest before Django reads its settings (`-p tests.env` in pyproject.toml): tests run
as production does, with DEBUG off, so they get test-only secrets here instead of the development
defaults (which DEBUG off refuses). The workers and servers the tests start inherit them.

On several processes (`make test` runs `pytest -n PYTEST_WORKERS`, pytest-xdist), each process
gets here what it must not share with the others, before Django reads it: its own Redis database
(the Celery broker and the cache: two processes on one database would take each other's tasks),
its own VAR_DIR (the embedded database and broker, the file cache, beat's file) in a temporary
folder, and, from pytest-django, its own test database (test_NAME_gw0, test_NAME_gw1, ...). Ports
are taken free from the system by each server the tests start (tests.helpers.free_port)."""

import atexit
import os
import shutil
import tempfile
from urllib.parse import urlsplit, urlunsplit

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-never-used-outside-the-test-suite-0123")
os.environ.setdefault("SANDBOX_CARD_SECRET_KEY", "test-only-sandbox-card-secret-key-0123456789")
# The merchants' receivers of the tests listen on 127.0.0.1, as a developer's would.
os.environ.setdefault("WEBHOOK_ALLOW_PRIVATE_NETWORKS", "true")
# The suite's money is fee-free unless a test states a plan (tests.pricing): the amounts of the
# tests of refunds, payouts and the books stay the ones they read; the fee tests set their rates,
# and tests/payments/fees checks the documented default plan itself.
os.environ.setdefault("PRICING_DEFAULT", "[]")
# Static files are served as found, without `collectstatic`'s hashed names.
os.environ.setdefault("STATIC_MANIFEST", "false")
# Without DATABASE_URL and REDIS_URL the tests run on SQLite and the embedded broker, on purpose.
if not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
    os.environ.setdefault("EMBEDDED", "true")


def worker_redis_url(redis_url: str, worker: int, dbs: str) -> str:
    """The Redis URL of xdist worker number `worker`: the database at that place in `dbs`
    (TEST_REDIS_DBS, "6,7"), or without such a list REDIS_URL's database plus the number."""
    parts = urlsplit(redis_url)
    if dbs.strip():
        choices = [int(db) for db in dbs.replace(",", " ").split()]
        if worker >= len(choices):
            raise RuntimeError(
                f"TEST_REDIS_DBS names {len(choices)} Redis databases for more test processes"
                f" (worker {worker}): name one for each"
            )
        db = choices[worker]
    else:
        db = int(parts.path.strip("/") or 0) + worker
    return urlunsplit(parts._replace(path=f"/{db}"))


def _one_process_each() -> None:
    name = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", ... in xdist's workers
    if not name.startswith("gw"):
        return
    worker = int(name[2:])
    if os.environ.get("REDIS_URL"):
        os.environ["REDIS_URL"] = worker_redis_url(
            os.environ["REDIS_URL"], worker, os.environ.get("TEST_REDIS_DBS", "")
        )
    var_dir = tempfile.mkdtemp(prefix=f"congopay-tests-{name}-")
    os.environ["VAR_DIR"] = var_dir
    atexit.register(shutil.rmtree, var_dir, ignore_errors=True)


_one_process_each()
