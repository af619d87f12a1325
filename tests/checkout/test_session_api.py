"""POST/GET /v1/checkout/sessions and the expire endpoint."""

from datetime import datetime, timedelta

import pytest

from checkout.models import CheckoutSession
from webhooks.models import Event

pytestmark = pytest.mark.django_db

BASE = {
    "amount": 250000,
    "currency": "CDF",
    "success_url": "https://shop.example.cd/merci?order=42",
    "cancel_url": "https://shop.example.cd/panier",
}


def create(api, **fields):
    return api.post("/v1/checkout/sessions", {**BASE, **fields}, format="json")


def error(response, status=400):
    assert response.status_code == status, response.content
    return response.json()["error"]


def test_created_session_is_open_with_absolute_url_and_24h_expiry(api, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.cd"
    response = create(
        api,
        metadata={"order": "42"},
        customer_phone="+243812345678",
        customer_email="client@example.cd",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["id"].startswith("cs_") and len(body["id"]) == 27
    assert body["object"] == "checkout.session"
    assert body["status"] == "open" and body["livemode"] is False
    assert body["url"] == f"https://pay.example.cd/pay/{body['id']}"
    assert body["payment_methods"] == ["mobile_money"]
    assert body["charge"] is None
    assert body["metadata"] == {"order": "42"}
    assert body["customer_phone"] == "+243812345678"
    assert body["customer_email"] == "client@example.cd"
    created = datetime.fromisoformat(body["created_at"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert expires - created == timedelta(hours=24)
    assert api.get(f"/v1/checkout/sessions/{body['id']}").json() == body


def test_expires_in_sets_the_expiry_and_is_bounded(api):
    body = create(api, expires_in=1800).json()
    created = datetime.fromisoformat(body["created_at"].replace("Z", "+00:00"))
    expires = datetime.fromisoformat(body["expires_at"].replace("Z", "+00:00"))
    assert expires - created == timedelta(minutes=30)
    for bad in (1799, 86401, "3600", 3600.0, True):
        err = error(create(api, expires_in=bad))
        assert err["code"] == "parameter_invalid" and err["param"] == "expires_in"


@pytest.mark.parametrize(
    "currency, amount, methods",
    [
        ("CDF", 250000, ["mobile_money"]),
        ("USD", 2000, ["mobile_money", "card"]),
        ("USD", 1999, ["card"]),
    ],
)
def test_payment_methods_follow_currency_and_whole_units(api, currency, amount, methods):
    body = create(api, currency=currency, amount=amount).json()
    assert body["payment_methods"] == methods


def test_card_is_not_offered_when_the_rail_is_off(api, merchant, settings):
    settings.SANDBOX_CARD_ENABLED = False
    assert create(api, currency="USD", amount=2000).json()["payment_methods"] == ["mobile_money"]
    err = error(create(api, currency="USD", amount=1999))
    assert err["code"] == "amount_invalid" and err["param"] == "amount"
    settings.SANDBOX_CARD_ENABLED = True
    merchant.card_rail_enabled = False
    merchant.save()
    assert create(api, currency="USD", amount=2000).json()["payment_methods"] == ["mobile_money"]
    assert error(create(api, currency="USD", amount=1999))["code"] == "amount_invalid"


def test_cdf_session_must_be_whole_francs(api):
    err = error(create(api, amount=250050))
    assert err["code"] == "amount_invalid" and "multiple of 100" in err["message"]


@pytest.mark.parametrize(
    "fields, code, param",
    [
        ({"amount": "2500"}, "amount_invalid", "amount"),
        ({"amount": 0}, "amount_invalid", "amount"),
        ({"currency": "EUR"}, "currency_not_supported", "currency"),
        ({"success_url": "/merci"}, "url_invalid", "success_url"),
        ({"cancel_url": "ftp://shop.example.cd/x"}, "url_invalid", "cancel_url"),
        ({"customer_phone": "0812345678"}, "phone_invalid", "customer_phone"),
        ({"customer_email": "not-an-email"}, "parameter_invalid", "customer_email"),
        ({"metadata": {"k": 5}}, "parameter_invalid", "metadata"),
        ({"colour": "red"}, "parameter_unknown", "colour"),
        ({"card_number": "4242424242424242"}, "card_data_forbidden", "card_number"),
    ],
)
def test_invalid_fields_are_refused_with_the_contract_code(api, fields, code, param):
    err = error(create(api, **fields))
    assert (err["code"], err["param"]) == (code, param)
    assert CheckoutSession.objects.count() == 0


@pytest.mark.parametrize("missing", ["amount", "currency", "success_url", "cancel_url"])
def test_required_fields(api, missing):
    body = {k: v for k, v in BASE.items() if k != missing}
    err = error(api.post("/v1/checkout/sessions", body, format="json"))
    assert (err["code"], err["param"]) == ("parameter_missing", missing)


def test_success_url_may_carry_the_session_id_placeholder(api):
    url = "https://shop.example.cd/merci?cs={CHECKOUT_SESSION_ID}"
    assert create(api, success_url=url).json()["success_url"] == url


def test_live_mode_needs_approval_and_https(live_api, merchant):
    err = error(create(live_api), status=403)
    assert err["code"] == "live_mode_not_approved"
    merchant.live_approved = True
    merchant.save()
    err = error(create(live_api, success_url="http://shop.example.cd/merci"))
    assert (err["code"], err["param"]) == ("url_invalid", "success_url")
    # No live card provider is configured: a live USD session offers mobile money only.
    body = create(live_api, currency="USD", amount=2000).json()
    assert body["livemode"] is True and body["payment_methods"] == ["mobile_money"]


def test_sessions_of_another_mode_or_merchant_are_missing(api, live_api, merchant):
    session_id = create(api).json()["id"]
    assert error(live_api.get(f"/v1/checkout/sessions/{session_id}"), 404)["code"] == (
        "resource_missing"
    )
    assert error(live_api.post(f"/v1/checkout/sessions/{session_id}/expire"), 404)["code"] == (
        "resource_missing"
    )


def test_expire_endpoint_expires_once_and_records_the_event(api):
    session_id = create(api).json()["id"]
    response = api.post(f"/v1/checkout/sessions/{session_id}/expire")
    assert response.status_code == 200, response.content
    assert response.json()["status"] == "expired"
    events = Event.objects.filter(type="checkout.session.expired")
    assert [e.data["object"]["id"] for e in events] == [session_id]
    err = error(api.post(f"/v1/checkout/sessions/{session_id}/expire"))
    assert err["code"] == "checkout_session_not_open"
    assert Event.objects.filter(type="checkout.session.expired").count() == 1


def test_list_is_newest_first_with_status_filter(api):
    first = create(api).json()["id"]
    second = create(api).json()["id"]
    api.post(f"/v1/checkout/sessions/{first}/expire")
    body = api.get("/v1/checkout/sessions").json()
    assert body["object"] == "list" and body["url"] == "/v1/checkout/sessions"
    assert [s["id"] for s in body["data"]] == [second, first]
    assert body["has_more"] is False and body["limit"] == 10
    expired = api.get("/v1/checkout/sessions?status=expired").json()["data"]
    assert [s["id"] for s in expired] == [first]
    assert error(api.get("/v1/checkout/sessions?status=paid"))["param"] == "status"
    assert error(api.get("/v1/checkout/sessions?limit=0"))["param"] == "limit"


def test_starting_after_keeps_working_when_the_cursor_session_left_the_filter(api, live_api):
    first, second, third = (create(api).json()["id"] for _ in range(3))
    page = api.get("/v1/checkout/sessions?status=open&limit=1").json()["data"]
    assert [s["id"] for s in page] == [third]
    api.post(f"/v1/checkout/sessions/{third}/expire")
    after = api.get(f"/v1/checkout/sessions?status=open&starting_after={third}")
    assert after.status_code == 200, after.content
    assert [s["id"] for s in after.json()["data"]] == [second, first]
    # still only the caller's sessions of this mode
    response = live_api.get(f"/v1/checkout/sessions?starting_after={second}")
    assert error(response)["param"] == "starting_after"
