"""Shared fixtures. Real databases, real broker: nothing of our own is mocked.

Tests that need PostgreSQL, Redis or Chromium skip when those are absent on a developer machine,
but in CI (CI=true or REQUIRE_REAL_SERVICES=1) a missing one fails the run instead.
"""

import contextlib
import os
import shutil

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from tests.factories import merchant_with_keys

STRICT = (
    os.environ.get("CI", "").lower() in ("1", "true", "yes")
    or os.environ.get("REQUIRE_REAL_SERVICES") == "1"
)


def _unavailable(reason: str):
    if STRICT:
        pytest.fail(f"required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def pytest_runtest_setup(item):
    if item.get_closest_marker("postgres") and not settings.DATABASES["default"]["ENGINE"].endswith(
        "postgresql"
    ):
        _unavailable("needs PostgreSQL (set DATABASE_URL=postgres://...)")
    if item.get_closest_marker("redis") and not settings.REDIS_URL:
        _unavailable("needs Redis (set REDIS_URL=redis://...)")
    if item.get_closest_marker("browser") and not shutil.which("chromium"):
        _unavailable("needs Debian's chromium (/usr/bin/chromium)")


@pytest.fixture(autouse=True)
def _webhooks_to_loopback(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True


@pytest.fixture(autouse=True)
def _throttles_out_of_the_way(settings):
    """Every test client calls from 127.0.0.1 and the cache outlives a test: the per-address
    throttles are set out of reach here; tests/test_throttles.py sets them low on purpose."""
    for name in (
        "THROTTLE_AUTH_FAILURES",
        "THROTTLE_CHECKOUT_ATTEMPTS_SESSION",
        "THROTTLE_CHECKOUT_ATTEMPTS_ADDRESS",
        "THROTTLE_CALLBACKS",
        "THROTTLE_ADMIN_LOGIN",
    ):
        setattr(settings, name, "1000000/s")


@pytest.fixture
def is_postgres() -> bool:
    return connection.vendor == "postgresql"


@pytest.fixture
def merchant_keys(db):
    return merchant_with_keys()


@pytest.fixture
def merchant(merchant_keys):
    return merchant_keys.merchant


@pytest.fixture
def api(merchant_keys) -> APIClient:
    """A client authenticated with the merchant's test key."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {merchant_keys.test_key.plaintext}")
    return client


@pytest.fixture
def live_api(merchant_keys) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {merchant_keys.live_key.plaintext}")
    return client


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


# --- Real browser -----------------------------------------------------------------------------

# Playwright's sync API runs an event loop in the test thread; the ORM calls our tests make there
# are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ARTIFACTS = settings.BASE_DIR / "tests" / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium driven by Playwright (never a downloaded browser)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=shutil.which("chromium") or "/usr/bin/chromium",
            headless=True,
            args=CHROMIUM_ARGS,
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, request):
    """A fresh browser page; a screenshot of its last state is kept in tests/artifacts/."""
    context = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 844})
    page = context.new_page()
    yield page
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        page.screenshot(path=str(ARTIFACTS / f"{request.node.name}-final.png"), full_page=True)
    except Exception:
        pass
    context.close()


@pytest.fixture
def public_base_url(live_server, settings):
    """Make absolute URLs (payment_url, checkout url, redirects) point at the live test server."""
    settings.PUBLIC_BASE_URL = live_server.url
    return live_server.url


# --- Celery ----------------------------------------------------------------------------------


@pytest.fixture
def eager_tasks():
    """Run tasks in the calling thread, so that a sweep's work is done when it returns."""
    from config.celery import app

    app.conf.task_always_eager = True
    yield
    app.conf.task_always_eager = False


# --- Real Celery worker -----------------------------------------------------------------------


def database_url_for_subprocess() -> str:
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


@pytest.fixture
def celery_worker_process(transactional_db, tmp_path):
    """A real `celery worker` process on the Redis broker, sharing the test database.

    Usage: `worker = celery_worker_process(SANDBOX_MOBILE_MONEY_DELAY="0")` starts one with extra
    environment; it is stopped at the end of the test. `beat=True` also runs the periodic jobs
    (`celery worker -B`), as `make run` does; `queues="a,b"` limits the queues it consumes.
    """
    import subprocess
    import sys
    import time

    from config.celery import app

    started = []

    def start(*, beat: bool = False, queues: str = "", **extra_env):
        app.control.purge()
        env = {
            **os.environ,
            "DATABASE_URL": database_url_for_subprocess(),
            "REDIS_URL": settings.REDIS_URL,
            "VAR_DIR": str(tmp_path),
            # This checkout's code, whatever else the environment points at.
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(settings.BASE_DIR), os.environ.get("PYTHONPATH")])
            ),
            **{k: str(v) for k, v in extra_env.items()},
        }
        log = open(tmp_path / "worker.log", "w")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "threads",
             "--concurrency", "4", "--loglevel", "INFO", "--without-gossip", "--without-mingle",
             *(["-B"] if beat else []), *(["--queues", queues] if queues else [])],
            cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        started.append((proc, log))
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError((tmp_path / "worker.log").read_text())
            if app.control.ping(timeout=0.5):
                return proc
        raise RuntimeError("worker did not start: " + (tmp_path / "worker.log").read_text())

    yield start
    for proc, log in started:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def wait_for(predicate, timeout: float = 20, interval: float = 0.2):
    """Poll until predicate() is truthy (for end-to-end tests); returns its value."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout}s")


@contextlib.contextmanager
def broker_down():
    """Broker and cache unreachable: the real Celery app and Django cache, pointed at an address
    where nothing listens (the discard port)."""
    from django.test import override_settings

    from config.celery import app

    nobody = "redis://127.0.0.1:9/0"
    url, eager = app.conf.broker_url, app.conf.task_always_eager
    cache = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": nobody}

    def reconnect(broker_url: str) -> None:
        app.conf.broker_url = broker_url
        app._pool = None  # what Celery does after a fork: new pools for the new URL
        app.amqp._producer_pool = None

    reconnect(nobody)
    app.conf.task_always_eager = False
    try:
        with override_settings(CACHES={"default": cache}):
            yield
    finally:
        app.conf.task_always_eager = eager
        reconnect(url)
