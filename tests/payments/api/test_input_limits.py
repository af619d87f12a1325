"""Input that once made a 500: deep or malformed JSON, dates and numbers out of range, bodies
over MAX_REQUEST_BODY. Each is refused with the error envelope, on the
API and on the providers' callbacks, and logged as one warning line without a traceback."""

import json
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import async_to_sync
from django.db import connections
from django.test import AsyncClient

from core.api.parsers import MAX_JSON_DEPTH, InvalidJson, loads
from payments.models import Charge, IdempotencyRecord
from tests.helpers import assert_error

pytestmark = pytest.mark.django_db

MM = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
DEEP = "[" * 100_000 + "]" * 100_000
CALLBACKS = ["/providers/airtel_money/callback", "/providers/orange_money/callback?notif_token=t"]


@pytest.fixture
def callbacks_on(settings):
    settings.ORANGE_NOTIF_TOKEN = "t"


def assert_logged_warning(caplog, code: str) -> None:
    """One warning line names the refusal; nothing at error level, no traceback."""
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING and code in r.message]
    assert warnings, [r.message for r in caplog.records]
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info]
    assert not loud, [r.message for r in loud]


def assert_callback_error(response, status: int, code: str) -> None:
    assert response.status_code == status, response.content[:300]
    body = response.json()
    assert body["received"] is False
    assert body["error"]["code"] == code
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["request_id"] == response["Request-Id"]


# --- Deep and malformed JSON ------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/charges", "/v1/webhook_endpoint", "/v1/checkout/sessions"])
@pytest.mark.parametrize(
    "body",
    [DEEP, '{"a":' * 50_000 + "1" + "}" * 50_000, "[" * 100_000],
    ids=["arrays", "objects", "unclosed"],
)
def test_deep_json_is_invalid_json_on_the_api(api, caplog, path, body):
    response = api.post(path, body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="d-1")
    assert_error(response, 400, "invalid_request_error", "invalid_json")
    assert f"deeper than {MAX_JSON_DEPTH}" in response.json()["error"]["message"]
    assert IdempotencyRecord.objects.count() == 0
    assert_logged_warning(caplog, "invalid_json")


@pytest.mark.parametrize("path", CALLBACKS)
@pytest.mark.parametrize(
    "body",
    [DEEP, "{not json", "[1, 2]", '{"transaction": {"id": NaN}}', '{"a": "\\u0000"}', b"\xff\xfe"],
    ids=["deep", "malformed", "not-an-object", "nan", "nul", "not-utf8"],
)
def test_deep_or_malformed_json_is_a_400_envelope_on_the_callbacks(
    client, callbacks_on, caplog, path, body
):
    response = client.post(path, body, content_type="application/json")
    assert_callback_error(response, 400, "invalid_json")
    assert_logged_warning(caplog, "invalid_json")


def test_nesting_is_limited_in_one_place_and_strings_do_not_count():
    assert loads("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None
    with pytest.raises(InvalidJson):
        loads("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1))
    text = "[[{" * 1000 + '\\"'
    assert loads(json.dumps({"description": text})) == {"description": text}


def test_a_bracket_filled_description_is_no_nesting(api):
    response = api.post(
        "/v1/charges", {**MM, "description": "[{" * 400}, format="json", HTTP_IDEMPOTENCY_KEY="b"
    )
    assert response.status_code == 201, response.content


@pytest.mark.parametrize(
    "raw, reason",
    [
        ('{"amount": NaN, "currency": "CDF"}', "NaN"),
        ('{"amount": Infinity}', "Infinity"),
        ('{"amount": -Infinity}', "-Infinity"),
        ('{"amount": ' + "9" * 5000 + "}", "too many digits"),
        ('{"metadata": {"a": "\\ud800"}}', "surrogate"),
        ('{"description": "a\\u0000b"}', "NUL"),
        ('{"description": "a\x00b"}', "Invalid control character"),  # a raw NUL, unescaped
        ('{"description": "ok"}\x00', "Extra data"),
        ('{"metadata": {"a\\u0000": "b"}}', "NUL"),  # in a name
        ('{"amount": 100, "currency": "CDF", "amount": 250000}', '"amount" appears twice'),
        ('{"metadata": {"k": "1", "k": "2"}}', '"k" appears twice'),
    ],
)
def test_what_no_column_can_store_is_not_json_we_accept(api, caplog, raw, reason):
    # NaN and Infinity are not JSON (RFC 8259); NUL and lone surrogates cannot be stored; a name
    # given twice is read differently by different readers.
    response = api.post("/v1/charges", raw, content_type="application/json")
    assert_error(response, 400, "invalid_request_error", "invalid_json")
    assert reason in response.json()["error"]["message"]
    assert Charge.objects.count() == 0
    assert_logged_warning(caplog, "invalid_json")


def test_a_name_given_twice_is_refused_in_french_too(api):
    response = api.post(
        "/v1/charges",
        '{"amount": 100, "amount": 250000}',
        content_type="application/json",
        HTTP_ACCEPT_LANGUAGE="fr",
    )
    assert_error(response, 400, "invalid_request_error", "invalid_json")
    assert 'le nom "amount" figure deux fois' in response.json()["error"]["message"]


# --- Out-of-range dates and numbers -----------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/charges", "/v1/checkout/sessions"])
@pytest.mark.parametrize(
    "query, param",
    [
        ("date_to=9999-12-31", "date_to"),
        ("date_to=9999-12-31T23:59:59-14:00", "date_to"),
        ("date_from=9999-12-31T23:59:59-00:01", "date_from"),
        ("date_from=0001-01-01T00:00:00%2B01:00", "date_from"),
        ("date_to=0001-01-01T00:59:59%2B14:00", "date_to"),
        ("date_from=2026-11-21T09:30:00%2B99:00", "date_from"),
        ("limit=" + "9" * 400, "limit"),
        ("offset=" + "9" * 400, "offset"),
        ("limit=1.5", "limit"),
        ("offset=1e3", "offset"),
        ("limit=NaN", "limit"),
    ],
)
def test_out_of_range_query_values_are_parameter_invalid(api, caplog, path, query, param):
    response = api.get(f"{path}?{query}")
    assert_error(response, 400, "invalid_request_error", "parameter_invalid")
    assert response.json()["error"]["param"] == param
    assert_logged_warning(caplog, "parameter_invalid")


@pytest.mark.parametrize(
    "query", ["date_from=0001-01-01", "date_to=9999-12-30", "date_to=9999-12-31T23:59:59Z"]
)
def test_the_extreme_dates_in_range_still_list(api, query):
    assert api.get(f"/v1/charges?{query}").status_code == 200


@pytest.mark.parametrize(
    "path, body, code, param",
    [
        ("/v1/charges", {**MM, "amount": 10**30}, "amount_invalid", "amount"),
        ("/v1/charges", {**MM, "amount": 2**63}, "amount_invalid", "amount"),
        ("/v1/charges", {**MM, "amount": 250000.0}, "amount_invalid", "amount"),
        ("/v1/charges", {**MM, "amount": 1e308}, "amount_invalid", "amount"),
        ("/v1/checkout/sessions", {"expires_in": 10**40}, "parameter_invalid", "expires_in"),
        ("/v1/checkout/sessions", {"expires_in": 3600.0}, "parameter_invalid", "expires_in"),
        ("/v1/charges", {**MM, "metadata": {"a": 10**30}}, "parameter_invalid", "metadata"),
    ],
    ids=["amount-huge", "amount-2^63", "amount-float", "amount-1e308", "expires-huge",
         "expires-float", "metadata-number"],
)  # fmt: skip
def test_out_of_range_body_numbers_are_refused(api, path, body, code, param):
    if path == "/v1/checkout/sessions":
        body = {
            "amount": 250000,
            "currency": "CDF",
            "success_url": "https://shop.example.cd/ok",
            "cancel_url": "https://shop.example.cd/cancel",
            **body,
        }
    response = api.post(path, body, format="json")
    assert_error(response, 400, "invalid_request_error", code)
    assert response.json()["error"]["param"] == param


def test_a_nul_character_in_the_url_is_parameter_invalid(api, client, caplog):
    for response in (
        api.get("/v1/charges/ch_%00"),
        api.get("/v1/charges?starting_after=%00"),
        client.get("/pay/cs_%00"),
    ):
        assert_error(response, 400, "invalid_request_error", "parameter_invalid")
    assert_logged_warning(caplog, "parameter_invalid")


# --- Bodies over MAX_REQUEST_BODY -------------------------------------------------------------


def test_the_limit_is_one_mebibyte_by_default_and_django_reads_no_more(settings):
    assert settings.MAX_REQUEST_BODY == 1_048_576
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == settings.MAX_REQUEST_BODY


@pytest.mark.parametrize(
    "path",
    ["/v1/charges", "/v1/checkout/sessions", *CALLBACKS, "/card/notify", "/card/receipt"],
)
def test_a_body_over_the_limit_is_413_everywhere(api, callbacks_on, caplog, path):
    body = json.dumps({**MM, "description": "x" * 2_600_000})
    response = api.post(path, body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="big")
    assert_error(response, 413, "invalid_request_error", "request_too_large")
    assert Charge.objects.count() == 0 and IdempotencyRecord.objects.count() == 0
    assert_logged_warning(caplog, "request_too_large")


def test_a_hosted_page_form_over_the_limit_is_413_not_500(client, settings):
    settings.MAX_REQUEST_BODY = 1000
    response = client.post("/pay/cs_x/mobile-money", {"phone": "+243812345678" * 200})
    assert response.status_code == 413


def test_the_limit_follows_the_setting(api, settings):
    settings.MAX_REQUEST_BODY = 1000
    pad = 1000 - len(json.dumps({**MM, "description": ""}))
    at_limit = json.dumps({**MM, "description": "x" * pad})
    assert len(at_limit) == 1000
    assert api.post("/v1/charges", at_limit, content_type="application/json").status_code == 201
    over = at_limit + " "  # one byte more, still the same JSON
    assert_error(
        api.post("/v1/charges", over, content_type="application/json"),
        413,
        "invalid_request_error",
        "request_too_large",
    )


class UnannouncedLengthClient(AsyncClient):
    """Sends the body with a Content-Length that says less, or none at all (chunked)."""

    def __init__(self, declared: str | None, **kwargs):
        self.declared = declared
        super().__init__(**kwargs)

    def request(self, **scope):
        headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
        if self.declared is not None:
            headers.append((b"content-length", self.declared.encode()))
        scope["headers"] = headers
        return super().request(**scope)


def in_a_thread_of_its_own(call):
    """`call()` in a new thread, which has no event loop running: the thread of the tests may have
    one (Playwright's, kept by the browser tests' session-wide browser), and async_to_sync refuses
    to run in a thread whose loop runs. Django's ASGI handler runs the view in that thread too,
    with a connection of its own (so the test's rows are committed: transaction=True)."""

    def run():
        try:
            return call()
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(run).result()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("declared", [None, "10"], ids=["chunked", "understated"])
@pytest.mark.parametrize("path", ["/v1/charges", "/providers/airtel_money/callback"])
def test_a_streamed_body_is_capped_where_it_is_read(merchant_keys, settings, declared, path):
    settings.MAX_REQUEST_BODY = settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    client = UnannouncedLengthClient(declared)
    body = json.dumps({**MM, "description": "x" * 5000})
    response = in_a_thread_of_its_own(
        lambda: async_to_sync(client.post)(
            path,
            body,
            content_type="application/json",
            headers={"Authorization": f"Bearer {merchant_keys.test_key.plaintext}"},
        )
    )
    if path == "/v1/charges" and declared is None:
        # No length, no body read: what WSGI servers do too. Refused, never a 500.
        assert_error(response, 400, "invalid_request_error", "parameter_missing")
    else:
        assert_error(response, 413, "invalid_request_error", "request_too_large")
    assert Charge.objects.count() == 0


@pytest.mark.parametrize("path", ["/card/notify", "/card/receipt"])
def test_a_card_reply_with_a_nul_character_is_refused(client, caplog, path):
    response = client.post(path, {"req_reference_number": "ch_\x00", "signature": "x"})
    assert response.status_code == 400
    assert any("NUL" in r.message for r in caplog.records if r.levelno == logging.WARNING)
