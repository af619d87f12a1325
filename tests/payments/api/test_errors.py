"""The error envelope on every error kind, and Request-Id on every response."""

import pytest
from django.test import override_settings
from django.urls import include, path
from rest_framework.test import APIClient

from core.api.base import ApiView
from tests.helpers import assert_error

pytestmark = pytest.mark.django_db


class Boom(ApiView):
    def get(self, request):
        raise RuntimeError("secret internals: password=hunter2")


urlpatterns = [path("v1/boom", Boom.as_view()), path("", include("config.urls"))]


def test_request_id_on_success_and_error(api, anon):
    ok = api.get("/v1/webhook_endpoint")
    assert ok.status_code == 200
    assert ok["Request-Id"].startswith("req_") and len(ok["Request-Id"]) == 28
    assert anon.get("/v1/webhook_endpoint")["Request-Id"] != ok["Request-Id"]
    assert APIClient().get("/healthz").has_header("Request-Id")


def test_unknown_route_under_v1_is_json_404(api, anon):
    for client in (api, anon):
        assert_error(
            client.get("/v1/nothing/here"), 404, "invalid_request_error", "resource_missing"
        )
        assert_error(
            client.post("/v1/nope", {}, format="json"),
            404,
            "invalid_request_error",
            "resource_missing",
        )


@pytest.mark.parametrize("method", ["post", "put", "patch", "delete"])
@pytest.mark.parametrize("path", ["/v1", "/v1/", "/v1/nope", "/v1/charges/ch_x/capture"])
def test_unknown_route_answers_json_404_to_every_method_without_a_csrf_token(api, method, path):
    """A merchant's server never sends a CSRF token (the `api` client checks for one as
    production does): an unsafe method on an unknown route is still the contract's 404, not
    Django's CSRF page."""
    response = getattr(api, method)(path, {}, format="json")
    assert_error(response, 404, "invalid_request_error", "resource_missing")
    assert response["Content-Type"] == "application/json; charset=utf-8"


def test_every_v1_view_takes_requests_without_a_csrf_token():
    """Every view under /v1 is exempt from CSRF: API clients authenticate with their key, and a
    view that checked CSRF would answer them with Django's HTML 403."""
    from django.urls import get_resolver

    def views(patterns, prefix=""):
        for entry in patterns:
            route = prefix + str(entry.pattern)
            if hasattr(entry, "url_patterns"):
                yield from views(entry.url_patterns, route)
            else:
                yield route, entry.callback

    found = [(route, view) for route, view in views(get_resolver().url_patterns)
             if route.startswith(("v1", "^v1"))]  # fmt: skip
    assert len(found) > 20
    assert [route for route, view in found if not getattr(view, "csrf_exempt", False)] == []


@override_settings(ALLOWED_HOSTS=["api.example.cd"])
def test_a_host_the_service_does_not_answer_for_is_a_json_400_under_v1(api):
    response = api.get("/v1/charges", HTTP_HOST="evil.example")
    assert_error(response, 400, "invalid_request_error", "request_invalid")
    assert "Host" in response.json()["error"]["message"]
    page = APIClient().get("/pay/cs_x", HTTP_HOST="evil.example")  # a page keeps Django's
    assert page.status_code == 400 and page["Content-Type"].startswith("text/html")


def test_method_not_allowed_is_405(api):
    assert_error(
        api.delete("/v1/webhook_endpoint"), 405, "invalid_request_error", "method_not_allowed"
    )


@pytest.mark.parametrize("method", ["delete", "put", "patch", "trace"])
def test_method_not_allowed_is_405_whatever_its_query_string(api, method):
    """The method is the first thing wrong with such a request: the parameters of a request the
    endpoint would never take are not looked at (they answered 400 parameter_unknown)."""
    for url in ("/v1/balance_transactions/export?currency=CDF", "/v1/charges?limit=1"):
        response = api.generic(method.upper(), url)
        assert_error(response, 405, "invalid_request_error", "method_not_allowed")


@pytest.mark.parametrize(
    "body, content_type",
    [
        ("{not json", "application/json"),
        ("[1, 2]", "application/json"),
        ('"x"', "application/json"),
        ("url=https://x.example", "application/x-www-form-urlencoded"),
    ],
)
def test_body_that_is_not_a_json_object_is_invalid_json(api, body, content_type):
    response = api.post("/v1/webhook_endpoint", body, content_type=content_type)
    assert_error(response, 400, "invalid_request_error", "invalid_json")


def test_unknown_field_is_parameter_unknown(api):
    response = api.post(
        "/v1/webhook_endpoint", {"url": "https://m.example/h", "colour": "red"}, format="json"
    )
    assert_error(response, 400, "invalid_request_error", "parameter_unknown")
    assert response.json()["error"]["param"] == "colour"


def test_missing_field_is_parameter_missing(api):
    response = api.post("/v1/webhook_endpoint", {}, format="json")
    assert_error(response, 400, "invalid_request_error", "parameter_missing")
    assert response.json()["error"]["param"] == "url"


def test_invalid_url_is_url_invalid(api):
    response = api.post("/v1/webhook_endpoint", {"url": "ftp://x"}, format="json")
    assert_error(response, 400, "invalid_request_error", "url_invalid")


def test_card_data_is_refused_before_anything_else(api):
    response = api.post("/v1/webhook_endpoint", {"card_number": "4242424242424242"}, format="json")
    assert_error(response, 400, "invalid_request_error", "card_data_forbidden")


@override_settings(ROOT_URLCONF=__name__, DEBUG=False)
def test_unhandled_error_is_json_500_without_internals(api, caplog):
    response = api.get("/v1/boom")
    assert_error(response, 500, "api_error", "internal_error")
    assert b"hunter2" not in response.content and b"Traceback" not in response.content
    assert response["Request-Id"] in caplog.text


@override_settings(
    REST_FRAMEWORK={
        **__import__("django.conf").conf.settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"api_key": "2/min"},
    }
)
def test_rate_limit_is_429_with_retry_after(api):
    from django.core.cache import cache

    cache.clear()
    codes = [api.get("/v1/webhook_endpoint").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    response = api.get("/v1/webhook_endpoint")
    assert_error(response, 429, "rate_limit_error", "rate_limited")
    assert int(response["Retry-After"]) >= 1
    cache.clear()


MM_CHARGE = {
    "amount": 250000,
    "currency": "CDF",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
}


def test_a_query_parameter_the_endpoint_does_not_read_is_parameter_unknown(api, merchant):
    """Like an unknown field of a body (docs/reference/api.md): `?expand=refunds` on a charge would
    otherwise answer as if it had been understood."""
    from payments.models import Charge
    from tests.factories import make_charge

    charge = make_charge(merchant)
    response = api.get(f"/v1/charges/{charge.id}?expand=refunds")
    assert_error(response, 400, "invalid_request_error", "parameter_unknown")
    assert response.json()["error"]["param"] == "expand"
    french = api.get(f"/v1/charges/{charge.id}?expand=refunds", HTTP_ACCEPT_LANGUAGE="fr")
    assert french.json()["error"]["message"] == "Paramètre inconnu reçu : expand."
    assert api.get("/v1/balance?currency=CDF").status_code == 400
    assert api.get(f"/v1/charges/{charge.id}?").status_code == 200  # an empty query string
    assert api.get("/v1/charges/ch_000000000000000000000000?x=1").status_code == 404

    # A write is refused before anything is done, its Idempotency-Key left unused.
    before = Charge.objects.count()
    refused = api.post(
        "/v1/charges?amount=100", MM_CHARGE, format="json", HTTP_IDEMPOTENCY_KEY="k1"
    )
    assert_error(refused, 400, "invalid_request_error", "parameter_unknown")
    assert refused.json()["error"]["param"] == "amount"
    assert Charge.objects.count() == before
    made = api.post("/v1/charges", MM_CHARGE, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert made.status_code == 201 and Charge.objects.count() == before + 1

    # Lists read their query string as before.
    assert api.get("/v1/charges?limit=1").status_code == 200
    assert api.get("/v1/charges?colour=red").json()["error"]["param"] == "colour"
