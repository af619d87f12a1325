"""Shared fixtures. Real databases, real broker: nothing of our own is mocked.

Tests that need PostgreSQL, Redis or Chromium skip when those are absent on a developer machine,
but in CI (CI=true or REQUIRE_REAL_SERVICES=1) a missing one fails the run instead.
"""

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection, connections
from rest_framework.test import APIClient

from tests.factories import merchant_with_keys, staff_client, with_totp
from tests.fakes import merchant as merchant_site
from tests.helpers import api_client, database_url_for_subprocess, screenshot, webhook_secret

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
    if item.get_closest_marker("nginx") and not os.access("/usr/sbin/nginx", os.X_OK):
        _unavailable("needs Debian's nginx (/usr/sbin/nginx)")


@pytest.fixture(autouse=True)
def _webhooks_to_loopback(settings):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True


@pytest.fixture(autouse=True)
def _throttles_out_of_the_way(settings):
    """Every test client calls from 127.0.0.1 and the cache outlives a test: the per-address
    throttles and the sign-in lockouts (django-axes) are set out of reach here;
    tests/payments/api/test_throttles*.py and the sign-in tests set them low on purpose."""
    for name in (
        "THROTTLE_AUTH_FAILURES",
        "THROTTLE_CHECKOUT_ATTEMPTS_SESSION",
        "THROTTLE_CHECKOUT_ATTEMPTS_ADDRESS",
        "THROTTLE_CALLBACKS",
        "THROTTLE_CARD_RECEIPTS",
    ):
        setattr(settings, name, "1000000/s")
    settings.THROTTLE_ADMIN_LOGIN = settings.THROTTLE_STAFF_SIGN_IN = "1000000/h"


@pytest.fixture(autouse=True)
def _network_limits_out_of_the_way(settings):
    """The suite's amounts (from 1 CDF up to the API's largest) were chosen for other rules than
    the networks' limits: every network takes the API's whole range here, as it did before
    limits existed. tests/payments/networks/ applies the configured limits on purpose."""
    settings.NETWORK_LIMITS = {
        network: {currency: (1, 999_999_999_999) for currency in ("CDF", "USD")}
        for network in settings.MOBILE_MONEY_NETWORKS
    }


@pytest.fixture(scope="session", autouse=True)
def _static_files_collected():
    """STATIC_ROOT filled as `collectstatic` does (links to the sources) at the start of the
    session: the live server and the gunicorns the tests start serve the static files from it
    with WhiteNoise, on a fresh clone too, instead of only when a collected copy was left there.
    The suite's processes (-n) share STATIC_ROOT: one collects while the others wait on the
    folder's lock, then find every link in place. A link to a source file renamed or removed
    since is removed first: WhiteNoise reads every file of the folder, and stops at one that is
    not there."""
    import fcntl

    from django.core.management import call_command

    folder = os.open(settings.STATIC_ROOT, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        for link in Path(settings.STATIC_ROOT).rglob("*"):
            if link.is_symlink() and not link.exists():
                link.unlink()
        call_command("collectstatic", interactive=False, link=True, verbosity=0)
    finally:
        os.close(folder)  # and the lock with it


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
    return api_client(merchant_keys.test_key.plaintext)


@pytest.fixture
def live_api(merchant_keys) -> APIClient:
    return api_client(merchant_keys.live_key.plaintext)


@pytest.fixture
def anon() -> APIClient:
    return APIClient(enforce_csrf_checks=True)


@pytest.fixture(autouse=True)
def totp_codes_of_the_next_or_last_period(settings):
    """A code typed by a test may reach the server in the next 30-second period, as a person's
    may: accepted, as authenticator apps drift (allauth's MFA_TOTP_TOLERANCE)."""
    settings.MFA_TOTP_TOLERANCE = 1


@pytest.fixture
def admin_user(admin_user):
    """pytest-django's superuser (behind its `admin_client`) with TOTP set up: staff reach no
    admin page before their second factor (docs/operations/staff.md)."""
    return with_totp(admin_user)


@pytest.fixture
def staff(db):
    """A browser logged in to the admin as the superuser `staff`."""
    return staff_client()


@pytest.fixture
def receiver(merchant):
    """The merchant's live webhook receiver, knowing the merchant's test mode signing secret."""
    with merchant_site.serving(webhook_secret(merchant)) as state:
        yield state


# --- The books ---------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _books_balance(request):
    """After every test that uses the database, the ledger must agree with the charges, refunds
    and payouts it comes from: every scenario of the suite also checks the books. A test that
    writes money state behind the services' back says so with @pytest.mark.books_unchecked."""
    uses_db = any(
        name in request.fixturenames for name in ("db", "transactional_db", "django_db_setup")
    ) or request.node.get_closest_marker("django_db")
    if not uses_db or request.node.get_closest_marker("books_unchecked"):
        yield
        return
    request.getfixturevalue(
        "transactional_db"
        if (marker := request.node.get_closest_marker("django_db"))
        and marker.kwargs.get("transaction")
        else "db"
    )
    yield
    from payments.services.ledger import ledger_check

    problems = ledger_check()
    assert problems == [], problems


# --- Migrations ------------------------------------------------------------------------------


@pytest.fixture
def migrate_to(transactional_db):
    """`migrate_to(targets)` moves the test database to those migrations and returns the
    historical apps there; whatever happens, the database is migrated forward to the latest
    migrations afterwards, so later tests find every table."""
    from django.db.migrations.executor import MigrationExecutor

    def migrate(targets):
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(targets)
        return executor.loader.project_state(targets).apps

    yield migrate
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


# --- Real browser -----------------------------------------------------------------------------

# Playwright's sync API runs an event loop in the test thread; the ORM calls our tests make there
# are still synchronous.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

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
        # While Playwright runs, its event loop is this thread's running loop, so Django keeps
        # this thread's database connections apart from those it made before (the async side
        # of its connection handler). Those opened meanwhile are closed here, while that is
        # still so: afterwards the end of the session would no longer see them, and the test
        # database could not be dropped ("being accessed by other users").
        connections.close_all()


@pytest.fixture
def page(browser, request):
    """A fresh browser page; a screenshot of its last state is kept in tests/artifacts/."""
    from playwright.sync_api import Error as PlaywrightError

    context = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 844})
    page = context.new_page()
    yield page
    try:
        screenshot(page, f"{request.node.name}-final")
    except PlaywrightError:  # a page that crashed or was closed has no last state to keep
        pass
    context.close()


# axe-core, the accessibility checker the page tests run in the browser: the npm package, fetched
# once by npm into a cache directory outside the repository.
AXE_VERSION = "4.14.1"
AXE_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "congopay-tests"


@pytest.fixture(scope="session")
def axe_source() -> str:
    """The source of axe-core's axe.min.js, installed with npm on first use."""
    import subprocess
    import tempfile

    target = AXE_CACHE / f"axe-core-{AXE_VERSION}"
    script = target / "node_modules" / "axe-core" / "axe.min.js"
    if not script.exists():
        npm = shutil.which("npm")
        if npm is None:
            _unavailable("needs npm to install the axe-core package")
        AXE_CACHE.mkdir(parents=True, exist_ok=True)
        tmp = tempfile.mkdtemp(dir=AXE_CACHE)
        try:
            subprocess.run(
                [npm, "install", "--prefix", tmp, "--no-save", "--no-audit", "--no-fund",
                 "--loglevel", "error", f"axe-core@{AXE_VERSION}"],
                check=True, capture_output=True, timeout=300,
            )  # fmt: skip
            os.replace(tmp, target)
        except OSError:
            if not script.exists():  # else another run installed it meanwhile
                raise
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return script.read_text()


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


@pytest.fixture
def celery_worker_process(transactional_db, tmp_path):
    """A real `celery worker` process on the Redis broker, sharing the test database.

    Usage: `worker = celery_worker_process(SANDBOX_MOBILE_MONEY_DELAY="0")` starts one with extra
    environment; it is stopped at the end of the test. `beat=True` also runs the periodic jobs
    (`celery worker -B`), as `make run` does. It consumes the default queue, the periodic sweeps'
    (PERIODIC_QUEUE) and the webhook deliveries' (WEBHOOKS_QUEUE); `queues="a,b"` names the
    queues it consumes instead, and `options` adds command-line options of `celery worker`.
    Several may run at once, each with its own `name` (its node name's first part); the first
    one started empties the queues.
    """
    import socket
    import subprocess
    import sys
    import time

    from config.celery import app

    started = []

    def start(
        *, beat: bool = False, queues: str = "", name: str = "celery", options=(), **extra_env
    ):
        if not started:
            app.control.purge()
            with app.connection_for_write() as connection:
                connection.default_channel.queue_purge(settings.WEBHOOKS_QUEUE)
                connection.default_channel.queue_purge(settings.PERIODIC_QUEUE)
        queues = queues or ",".join(
            [app.conf.task_default_queue, settings.PERIODIC_QUEUE, settings.WEBHOOKS_QUEUE]
        )
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
        log_path = tmp_path / f"worker-{name}.log"
        log = open(log_path, "w")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "threads",
             "--concurrency", "4", "--loglevel", "INFO", "--without-gossip", "--without-mingle",
             "--hostname", f"{name}@%h", "--queues", queues, *(["-B"] if beat else []), *options],
            cwd=settings.BASE_DIR, env=env, stdout=log, stderr=subprocess.STDOUT,
        )  # fmt: skip
        started.append((proc, log))
        node = f"{name}@{socket.gethostname()}"
        deadline = time.monotonic() + 90  # starting takes longer on a loaded machine
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(log_path.read_text())
            if app.control.ping(destination=[node], timeout=0.5):
                return proc
        raise RuntimeError("worker did not start: " + log_path.read_text())

    yield start
    for proc, log in started:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


# The tests that take twenty seconds to a minute or more each (a killed worker's batch, make run's
# examples, a 1,000-row batch, whole deployments, the statement's memory, the ledger's migration,
# the dashboard's flow in Chromium with a worker, the client libraries against make run's service)
# go first: the processes of `make test` take tests in order, and one of these taken last keeps
# one process busy while the other idles.
SLOWEST_FIRST = (
    "tests/batches/test_worker_e2e.py",
    "tests/payments/platform/test_readme.py",
    "tests/deploy/test_drill.py",
    "tests/payments/e2e/",
    "tests/payments/ledger/test_statement_memory.py",
    "tests/payments/ledger/test_ledger_migration.py",
    "tests/dashboard/test_e2e.py",
    "tests/clients/",
)


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: not item.nodeid.startswith(SLOWEST_FIRST))  # a stable sort


# Every test collected runs. On several processes each one's collection reaches the controller
# through xdist's hook, and a run that reports fewer tests than were collected fails, saying so: a
# scheduler keyed by node id once ran one of the 34 schemathesis operations that share one, and the
# run still passed.
COLLECTED: list[int] = []
REPORTED = ("passed", "failed", "skipped", "xfailed", "xpassed")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    COLLECTED.append(len(ids))


def pytest_sessionfinish(session, exitstatus):
    if not COLLECTED or exitstatus != pytest.ExitCode.OK:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    reported = sum(len(reporter.stats.get(outcome, [])) for outcome in REPORTED)
    if reported < max(COLLECTED):
        reporter.write_line(
            f"{max(COLLECTED)} tests were collected and {reported} ran: the others never did",
            red=True,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
