"""The database out of reach (a restart, a failover, a network cut): a real gunicorn whose
PostgreSQL address answers nothing. The API answers 503 `service_unavailable` in its envelope,
with Retry-After, and says a retry with the same Idempotency-Key is safe; a hosted page shows the
pages' own "try again in a moment" in the customer's language (503 too), checked in Chromium.
Nothing of this is a 500, and the log holds one line per request, not a traceback (but for a
deadlock, whose traceback shows the code path that lost it)."""

import base64
import hashlib
import hmac
import json
import urllib.error
import urllib.request

import pytest

from tests.helpers import axe_violations, free_port, screenshot

CHARGE = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
KEY = "sk_test_" + "a" * 40  # no key can be looked up while the database is away
AIRTEL_CALLBACK_KEY = "airtel-callback-private-key"  # the key of Airtel's callback hash


def airtel_callback() -> bytes:
    """An Airtel callback with its hash (an unsigned one is refused before any query)."""
    transaction = {"id": "ch_x", "status_code": "TS", "message": "ok"}
    message = json.dumps(transaction, separators=(",", ":")).encode()
    digest = hmac.new(AIRTEL_CALLBACK_KEY.encode(), message, hashlib.sha256).digest()
    return json.dumps(
        {"transaction": transaction, "hash": base64.b64encode(digest).decode()}
    ).encode()


@pytest.fixture
def server_env() -> dict:
    # The page's stylesheet is served from the collected files, as in production: the session's
    # (tests/conftest.py). Collecting them again here, as copies over the session's links, took
    # files away from under the other test process's WhiteNoise while it listed them.
    return {
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:{free_port()}/payments",
        "AIRTEL_CALLBACK_HASH_KEY": AIRTEL_CALLBACK_KEY,
    }


def ask(server, method: str, path: str, body=None, headers=None):
    request = urllib.request.Request(
        server.base + path,
        method=method,
        data=json.dumps(body).encode() if body is not None else None,
        headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json",
                 **(headers or {})},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_the_api_answers_503_while_the_database_is_away(server):
    for method, path, body, headers in [
        ("GET", "/v1/charges/ch_x", None, {}),
        ("GET", "/v1/balance", None, {"Accept-Language": "fr"}),
        ("POST", "/v1/charges", CHARGE, {"Idempotency-Key": "order-1"}),
    ]:
        status, answer_headers, answer = ask(server, method, path, body, headers)
        assert status == 503, answer
        assert answer_headers["Retry-After"] == "1"
        assert answer_headers["Content-Type"] == "application/json; charset=utf-8"
        error = json.loads(answer)["error"]
        assert (error["type"], error["code"]) == ("api_error", "service_unavailable")
        assert error["request_id"] == answer_headers["Request-Id"]
        if headers.get("Accept-Language") == "fr":
            assert error["message"].startswith("Le service est momentanément indisponible.")
        else:
            assert "a retry with the same Idempotency-Key is always safe" in error["message"]
    log = server.log.read_text()
    assert log.count("Database unavailable on") == 3
    assert "Traceback" not in log


@pytest.mark.parametrize(
    ("path", "body", "content_type"),
    [
        ("/providers/airtel_money/callback", airtel_callback(), "application/json"),
        ("/card/notify", b"req_reference_number=ch_x&decision=ACCEPT&signature=x",
         "application/x-www-form-urlencoded"),
    ],
    ids=["operator-callback", "card-notify"],
)  # fmt: skip
def test_a_machine_calling_us_outside_the_api_gets_the_api_error_while_the_database_is_away(
    server, path, body, content_type
):
    """An operator's callback or the card provider's notification: no page for a person, the
    API's envelope, which says to retry (both retry on any 5xx)."""
    request = urllib.request.Request(
        server.base + path, method="POST", data=body, headers={"Content-Type": content_type}
    )
    with pytest.raises(urllib.error.HTTPError) as answered:
        urllib.request.urlopen(request, timeout=20)
    assert answered.value.code == 503
    assert answered.value.headers["Retry-After"] == "1"
    assert answered.value.headers["Content-Type"] == "application/json; charset=utf-8"
    error = json.loads(answered.value.read())["error"]
    assert (error["type"], error["code"]) == ("api_error", "service_unavailable")
    assert error["message"].startswith("The service is briefly unavailable.")
    log = server.log.read_text()
    assert log.count("Database unavailable on POST " + path) == 1
    assert "Traceback" not in log


@pytest.mark.browser
def test_a_hosted_page_says_try_again_while_the_database_is_away(server, browser, axe_source):
    context = browser.new_context(
        locale="fr-FR", viewport={"width": 360, "height": 740}, bypass_csp=True
    )
    page = context.new_page()
    try:
        styles = []
        page.on("response", lambda r: styles.append(r.status) if r.url.endswith(".css") else None)
        response = page.goto(server.base + "/pay/cs_" + "x" * 24)
        assert response.status == 503
        assert styles == [200]  # styled as every page, without the database
        assert response.headers["retry-after"] == "1"
        assert page.locator("h1").inner_text() == "Cette page ne peut pas s'afficher pour le moment"
        assert "Référence pour l'assistance : req_" in page.locator("main").inner_text()
        retry = page.get_by_role("link", name="Réessayer")
        assert retry.get_attribute("href") == "/pay/cs_" + "x" * 24
        assert axe_violations(page, axe_source) == []
        screenshot(page, "page-database-away-fr")
        english = context.new_page()
        english.set_extra_http_headers({"Accept-Language": "en"})
        english.goto(server.base + "/pay/cs_" + "x" * 24 + "?lang=en")
        assert english.locator("h1").inner_text() == "This page cannot be shown just now"
        screenshot(english, "page-database-away-en")
    finally:
        context.close()
    assert "Traceback" not in server.log.read_text()


def test_any_other_failure_of_a_page_shows_the_same_page_and_the_staff_pages_keep_djangos(rf):
    """Django's handler500, for a failure that is not the database's: the customer's page
    says the same "try again in a moment" (500, no Retry-After); the admin keeps Django's."""
    from django.utils import translation

    from core.api.errors import handler500

    request = rf.get("/pay/cs_" + "x" * 24)
    request.request_id = "req_test"
    with translation.override("fr"):  # the request's language, as the middleware sets it
        response = handler500(request)
    assert response.status_code == 500
    assert "Retry-After" not in response
    page = response.content.decode()
    assert "Cette page ne peut pas s'afficher pour le moment" in page
    assert "req_test" in page
    staff = handler500(rf.get("/admin/payments/charge/"))
    assert staff.status_code == 500
    assert b"Server Error (500)" in staff.content
    for path in ("/card/notify", "/providers/orange_money/callback"):
        machine = handler500(rf.post(path, HTTP_ACCEPT_LANGUAGE="fr"))
        assert machine.status_code == 500
        error = json.loads(machine.content)["error"]
        assert (error["type"], error["code"]) == ("api_error", "internal_error")
        assert error["message"].startswith("Une erreur interne")


def _deadlock_between_two_sessions(params: dict):
    """The error PostgreSQL gives the session that loses a real deadlock: two sessions each hold
    one row and ask for the other's."""
    import threading

    import psycopg

    setup = psycopg.connect(**params, autocommit=True)
    setup.execute("CREATE TABLE deadlock_probe (id int PRIMARY KEY)")
    setup.execute("INSERT INTO deadlock_probe VALUES (1), (2)")
    first, second = psycopg.connect(**params), psycopg.connect(**params)
    lost = []

    def update(session, row):
        try:
            session.execute("UPDATE deadlock_probe SET id = id WHERE id = %s", [row])
            session.commit()
        except psycopg.errors.DeadlockDetected as exc:
            lost.append(exc)
            session.rollback()

    try:
        for session, row in ((first, 1), (second, 2)):
            session.execute("SET deadlock_timeout = '100ms'")
            session.execute("UPDATE deadlock_probe SET id = id WHERE id = %s", [row])
        other = threading.Thread(target=update, args=(first, 2))
        other.start()
        update(second, 1)
        other.join(10)
    finally:
        first.close()
        second.close()
        setup.execute("DROP TABLE deadlock_probe")
        setup.close()
    assert len(lost) == 1
    return lost[0]


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_deadlock_is_logged_with_its_traceback_an_unreachable_database_in_one_line(caplog):
    from django.db import DEFAULT_DB_ALIAS, connections
    from django.db.utils import OperationalError
    from django.test import RequestFactory

    from core.api.errors import service_unavailable_response

    db = connections[DEFAULT_DB_ALIAS]
    deadlock = _deadlock_between_two_sessions(db.get_connection_params())
    with pytest.raises(OperationalError) as wrapped, db.wrap_database_errors:
        raise deadlock  # as Django hands it over: its own OperationalError, caused by psycopg's
    request = RequestFactory().post("/v1/charges/ch_x/refunds")
    assert service_unavailable_response(request, wrapped.value).status_code == 503

    unreachable = connections.create_connection(DEFAULT_DB_ALIAS)
    unreachable.settings_dict = {**db.settings_dict, "PORT": str(free_port())}
    with pytest.raises(OperationalError) as away:
        unreachable.ensure_connection()
    assert service_unavailable_response(request, away.value).status_code == 503

    said = [r for r in caplog.records if r.name == "payments.api" and r.levelname == "ERROR"]
    assert [r.getMessage().split(" on ")[0] for r in said] == [
        "Database deadlock",
        "Database unavailable",
    ]
    assert said[0].exc_info[1] is wrapped.value and "deadlock detected" in said[0].getMessage()
    assert said[1].exc_info is None
