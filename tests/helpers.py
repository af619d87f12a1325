"""What the test modules share besides their data (built by tests/factories.py): API clients and
error envelopes, admin and webhook settings, the card provider's hosted page, screenshots, waiting
for a worker, racing threads, an unreachable broker, the whole service as `make run` starts it."""

import base64
import contextlib
import dataclasses
import hashlib
import hmac
import html
import http.client
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from django.conf import settings
from django.contrib.admin.utils import quote
from django.db import connection
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from payments.providers import secure_acceptance

# Screenshots of the browser tests.
ARTIFACTS = settings.BASE_DIR / "tests" / "artifacts"


def api_client(plaintext: str) -> APIClient:
    """A client of the API authenticated with this secret key. Like a merchant's server it sends
    no CSRF token, and Django checks for one as it does in production."""
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {plaintext}")
    return client


def procfile_commands() -> dict[str, list[str]]:
    """The command line of each process of the Procfile (the same as its systemd unit's)."""
    import shlex

    commands = {}
    for line in (settings.BASE_DIR / "Procfile").read_text().splitlines():
        if line and not line.startswith("#"):
            name, command = line.split(":", 1)
            commands[name] = shlex.split(command)
    return commands


def next_request() -> None:
    """What Django does between two requests on this thread."""
    from django.core.signals import request_finished, request_started

    request_finished.send(sender=None)
    request_started.send(sender=None)


def killed_by_the_server() -> None:
    """The database server ends this thread's connection, as a restart or a proxy would."""
    from django.db import connections

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    other = connections.create_connection("default")
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()


def admin_url(obj, action: str = "change") -> str:
    """The admin page of `obj` as the admin itself links to it: reversed with the quoted id, as
    Django's admin does, which the address shows as the id itself (core.admin.addresses)."""
    meta = obj._meta
    return reverse(f"admin:{meta.app_label}_{meta.model_name}_{action}", args=[quote(obj.pk)])


def set_webhook_url(merchant, url: str, *, livemode: bool = False):
    """The merchant's default webhook URL of one mode, set as the API sets it."""
    from webhooks.services import endpoint_set_url

    endpoint_set_url(merchant=merchant, livemode=livemode, url=url)


def webhook_secret(merchant, *, livemode: bool = False) -> str:
    """The secret that signs the mode's deliveries now."""
    from webhooks.services import endpoint_get

    return endpoint_get(merchant=merchant, livemode=livemode).secret


def assert_error(response, status, type_, code):
    """The response is the contract's error envelope with this status, type and code."""
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"}
    error = body["error"]
    assert error["type"] == type_
    assert error["code"] == code
    assert error["message"]
    assert error["request_id"] == response["Request-Id"]
    assert error["request_id"].startswith("req_")
    assert response["Content-Type"] == "application/json; charset=utf-8"


def screenshot(page, name: str) -> None:
    """A full-page screenshot of a browser test, kept as tests/artifacts/<name>.png."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def axe_violations(page, axe_source: str) -> list[dict]:
    """axe-core's violations on the page as it is now (every rule it runs by default), one
    {id, impact, help, targets} per rule. The page's context must bypass the page's
    Content-Security-Policy (`bypass_csp=True`), which would refuse the injected script."""
    page.add_script_tag(content=axe_source)
    return page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ["violations"]})).violations
            .map(v => ({id: v.id, impact: v.impact, help: v.help,
                        targets: v.nodes.map(n => n.target.join(" "))}))"""
    )


def totp_code(secret: str, at: float | None = None) -> str:
    """RFC 6238 (SHA-1, 30 s, 6 digits), as an authenticator app computes it."""
    key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
    counter = int((time.time() if at is None else at) // 30)
    digest = hmac.new(key, struct.pack(">Q", counter), hashlib.sha1).digest()
    offset = digest[-1] & 0x0F
    number = struct.unpack(">I", digest[offset : offset + 4])[0] & 0x7FFFFFFF
    return f"{number % 1_000_000:06d}"


def totp_secret(user) -> str:
    """The TOTP secret the user set up (as `tests.factories.with_totp` made it)."""
    from allauth.mfa.models import Authenticator
    from allauth.mfa.utils import decrypt

    authenticator = Authenticator.objects.get(user=user, type=Authenticator.Type.TOTP)
    return decrypt(authenticator.data["secret"])


def admin_sign_in(page, base_url: str, next_path: str, username: str = "staff") -> None:
    """Sign in to the admin in the browser (as `tests.factories.staff_user` made them: the
    accounts' sign-in with their e-mail address and password, then a code) and land on
    `next_path`."""
    from django.contrib.auth import get_user_model

    user = get_user_model().objects.get(username=username)
    page.goto(f"{base_url}/admin/login/?next={next_path}")
    page.fill("#id_login", user.email)
    page.fill("#id_password", "pw-123-long")
    page.press("#id_password", "Enter")
    page.fill("#id_code", totp_code(totp_secret(user)))
    page.press("#id_code", "Enter")
    page.wait_for_url(f"{base_url}{next_path}")


def query_params(url: str) -> dict:
    """The query string of `url`, one value per name."""
    return {k: v[0] for k, v in parse_qs(urlsplit(url).query).items()}


def refund_events(refund_id: str | None = None) -> list:
    """The refund.* events, oldest first; of one refund if `refund_id` is given."""
    from webhooks.models import Event

    events = Event.objects.filter(type__startswith="refund.").order_by("created_at")
    if refund_id:
        events = [e for e in events if e.data["object"]["id"] == refund_id]
    return list(events)


def refund_event_types(refund_id: str) -> list[str]:
    """The types of one refund's events, oldest first."""
    return [event.type for event in refund_events(refund_id)]


# --- The card provider's hosted page -----------------------------------------------------------

INPUT_RE = re.compile(r'<input type="hidden" name="([^"]*)" value="([^"]*)">')
FORM_ACTION_RE = re.compile(r'<form id="reply" method="post" action="([^"]*)">')
DECIDE_RE = re.compile(r'<form method="post" action="([^"]*/decide)">')


def resign(fields: dict[str, str], secret_key: str | None = None) -> dict[str, str]:
    """The fields signed again (what someone holding the key could send)."""
    fields = {k: v for k, v in fields.items() if k != "signature"}
    fields["signature"] = secure_acceptance.sign(
        fields, secret_key or settings.SANDBOX_CARD_SECRET_KEY
    )
    return fields


def open_payment_page(client: Client, params: dict[str, str]):
    """The merchant's form posted to the test card provider."""
    return client.post("/sandbox/card/pay", params)


def decide_url(page_html: str) -> str:
    """Where the test card provider's page posts the customer's choice."""
    match = DECIDE_RE.search(page_html)
    assert match, page_html
    return html.unescape(match.group(1))


def reply_form(reply_html: str) -> tuple[str, dict[str, str]]:
    """The action and fields of the auto-submitting reply form."""
    action = FORM_ACTION_RE.search(reply_html)
    assert action, reply_html
    fields = {html.unescape(k): html.unescape(v) for k, v in INPUT_RE.findall(reply_html)}
    return html.unescape(action.group(1)), fields


def pay(client: Client, params: dict[str, str], outcome: str) -> tuple[str, dict[str, str]]:
    """Submit the merchant's form to the test card provider and click one outcome."""
    page = open_payment_page(client, params)
    assert page.status_code == 200, page.content
    reply = client.post(decide_url(page.content.decode()), {"outcome": outcome})
    assert reply.status_code == 200, reply.content
    return reply_form(reply.content.decode())


# --- Time, threads, the broker -----------------------------------------------------------------


def wait_for(predicate, timeout: float = 60, interval: float = 0.2):
    """Poll until predicate() is truthy (for end-to-end tests); returns its value. The deadline is
    generous: it fails only on what never happens, even on a machine shared by several test
    processes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout}s")


def race(target, count: int = 2) -> list:
    """Run `target` in `count` threads (each its own database connection) released at once; what
    each returned or raised."""
    barrier = threading.Barrier(count)
    results = []

    def run():
        barrier.wait()
        try:
            results.append(target())
        except Exception as exc:  # noqa: BLE001 - the outcome of each racer is what we check
            results.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def database_url_for_subprocess() -> str:
    """The test database, as a worker or server started by a test reaches it."""
    db = settings.DATABASES["default"]
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db.get("USER") or "postgres"
    password = f":{db['PASSWORD']}" if db.get("PASSWORD") else ""
    return f"postgres://{user}{password}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}/{db['NAME']}"


BROKER_NOBODY = "redis://127.0.0.1:9/0"


@contextlib.contextmanager
def broker_down():
    """Broker and cache unreachable: the real Celery app and Django cache, pointed at an address
    where nothing listens (the discard port)."""
    from django.test import override_settings

    from config.celery import app

    eager = app.conf.task_always_eager
    cache = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": BROKER_NOBODY}

    def reconnect(broker_url: str | None) -> None:
        # Set under the name the settings give it (config/celery.py's CELERY namespace), and
        # dropped again afterwards: Celery before 5.7 prefers that name, from wherever it comes,
        # to a plain broker_url set here.
        if broker_url is None:
            app.conf.pop("CELERY_BROKER_URL", None)
        else:
            app.conf["CELERY_BROKER_URL"] = broker_url
        app._pool = None  # what Celery does after a fork: new pools for the new URL
        app.amqp._producer_pool = None

    reconnect(BROKER_NOBODY)
    app.conf.task_always_eager = False
    try:
        with override_settings(CACHES={"default": cache}):
            yield
    finally:
        app.conf.task_always_eager = eager
        reconnect(None)


# --- `make run`, started by a test ---------------------------------------------------------------


@dataclasses.dataclass
class EmbeddedService:
    base: str  # http://127.0.0.1:<port>
    env: dict[str, str]  # its environment: the same for any command run against it
    var_dir: Path
    demo: dict  # var/demo-merchant.json
    log_path: Path
    returncode: int | None = None

    def call(self, method: str, path: str, body: dict | None = None) -> dict:
        """One API request with the demo merchant's test key; the JSON answer."""
        request = urllib.request.Request(
            self.base + path,
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={
                "Authorization": f"Bearer {self.demo['test_secret_key']}",
                "Content-Type": "application/json",
            },
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())


def backends_waiting_on_a_lock() -> int:
    """How many sessions of the test database wait on a lock now (PostgreSQL): a test holding
    one transaction open sees when the other has reached it."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def api_call(base: str, key: str, method: str, path: str, body=None, idempotency_key: str = ""):
    """One request to the API of a running server (gunicorn, or nginx in front of it) with an API
    key: (status, JSON body), or (None, the error) when no whole HTTP answer came (the server was
    lost mid-request, or mid-answer: nginx passes an answer's head on as soon as it has it, and a
    node lost before the body leaves the client a cut-off answer)."""
    headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    request = urllib.request.Request(
        base + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers=headers,
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")
    except (OSError, http.client.HTTPException) as error:
        return None, repr(error)


@contextlib.contextmanager
def embedded_service(var_dir: Path, **env):
    """`make run` as it is on a fresh machine: migrate, the demo merchant, then runservice (the
    embedded set-up: SQLite database and broker, a Celery worker with beat and the long-calls
    worker, gunicorn) on an empty VAR_DIR, with a sandbox that answers within a second. It brings
    its own database and broker, so it runs the same with or without PostgreSQL/Redis. Stopped
    by SIGTERM on the way out; its exit code is then in `returncode`."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL")},
        "VAR_DIR": str(var_dir),
        "DATABASE_URL": f"sqlite:///{var_dir / 'db.sqlite3'}",
        "REDIS_URL": "",
        "DEBUG": "true",  # as make run
        "PUBLIC_BASE_URL": base,
        "SANDBOX_MOBILE_MONEY_DELAY": "1",
        "PYTHONPATH": str(settings.BASE_DIR),
        **env,
    }
    manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
    for command in (["migrate", "--noinput"], ["demomerchant"]):
        subprocess.run([*manage, *command], env=env, check=True, capture_output=True, timeout=120)
    assert not (var_dir / "broker.sqlite3").exists()  # runservice prepares the broker itself
    service = EmbeddedService(
        base=base,
        env=env,
        var_dir=var_dir,
        demo=json.loads((var_dir / "demo-merchant.json").read_text()),
        log_path=var_dir / "service.log",
    )

    def up() -> bool:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    with open(service.log_path, "w") as log:
        process = subprocess.Popen(
            [*manage, "runservice", "--bind", f"127.0.0.1:{port}", "--web-workers", "1"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for(up, 120)  # starting takes longer on a loaded machine
            yield service
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
            service.returncode = process.returncode


# --- Clients at their own addresses ----------------------------------------------------------------

CSRF_FIELD = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def loopback_address() -> str:
    """An address of this machine other than 127.0.0.1 (the whole 127/8 block is loopback),
    random, since the throttles' counts live in the cache, which outlives a test."""
    import random

    return f"127.{random.randrange(1, 255)}.{random.randrange(256)}.{random.randrange(1, 255)}"


@dataclasses.dataclass
class Answer:
    status: int
    headers: dict[str, str]
    text: str


class AddressClient:
    """A browser calling a running server (the live server, a gunicorn) from its own source
    address: the server sees it as REMOTE_ADDR, as it sees a customer, through the deployment's
    own client-address rules. It keeps its cookies and posts forms with their CSRF token."""

    def __init__(self, base: str, address: str | None = None, *, language: str = "fr"):
        parts = urlsplit(base)
        self.port = parts.port
        self.address = address or loopback_address()
        self.language = language
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, form: dict | None = None) -> Answer:
        from urllib.parse import urlencode

        headers = {"Accept-Language": self.language}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form).encode()
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        connection = http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=60, source_address=(self.address, 0)
        )
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            text = response.read().decode()
            for name, value in response.getheaders():
                if name.lower() == "set-cookie":
                    cookie, _, _attributes = value.partition(";")
                    key, _, cookie_value = cookie.partition("=")
                    self.cookies[key.strip()] = cookie_value.strip()
            return Answer(response.status, dict(response.getheaders()), text)
        finally:
            connection.close()

    def get(self, path: str) -> Answer:
        return self.request("GET", path)

    def post(self, path: str, form: dict) -> Answer:
        return self.request("POST", path, form)

    def submit(self, page: str, path: str, fields: dict) -> Answer:
        """Load `page`, then post `fields` to `path` with the page's CSRF token, as its form does."""
        loaded = self.get(page)
        token = CSRF_FIELD.search(loaded.text)
        assert token, (loaded.status, loaded.text[:500])
        return self.post(path, {"csrfmiddlewaretoken": token.group(1), **fields})
