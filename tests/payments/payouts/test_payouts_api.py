"""POST/GET /v1/payouts: validation in the contract's shape, the balance they are paid from, the
live rules, idempotency, and each merchant and mode seeing only its own."""

import pytest

from payments.models import LedgerEntry, Payout
from payments.services import payouts
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import assert_error

pytestmark = pytest.mark.django_db

BODY = {"amount": 5000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


@pytest.fixture
def funded(merchant):
    """A test-mode CDF balance of 20000."""
    succeeded_mobile_money_charge(merchant, amount=20000)
    return merchant


def test_a_payout_is_created_pending_and_its_amount_reserved(api, funded):
    response = api.post(
        "/v1/payouts",
        {**BODY, "description": "Commission", "metadata": {"agent": "A-7"}},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == {
        "id", "object", "livemode", "amount", "currency", "phone", "network", "status",
        "description", "metadata", "failure_code", "failure_message", "operator_reference",
        "created_at", "updated_at",
    }  # fmt: skip
    assert body["id"].startswith("po_") and len(body["id"]) == 27
    assert (body["object"], body["livemode"], body["status"]) == ("payout", False, "pending")
    assert (body["amount"], body["currency"], body["phone"], body["network"]) == (
        5000,
        "CDF",
        "+243812345678",
        "VODACOM_MPESA",
    )
    assert (body["description"], body["metadata"]) == ("Commission", {"agent": "A-7"})
    assert (body["failure_code"], body["failure_message"]) == (None, None)
    assert list(LedgerEntry.objects.filter(source=body["id"]).values_list("type", "amount")) == [
        ("payout", -5000)
    ]
    assert api.get("/v1/balance").json()["available"][0] == {"currency": "CDF", "amount": 15000}
    assert api.get(f"/v1/payouts/{body['id']}").json() == body


def test_a_payout_beyond_the_balance_is_refused_and_nothing_is_written(api, funded):
    response = api.post("/v1/payouts", {**BODY, "amount": 20100}, format="json")
    assert_error(response, 400, "invalid_request_error", "balance_insufficient")
    assert Payout.objects.count() == 0
    response = api.post("/v1/payouts", {**BODY, "currency": "USD", "amount": 100}, format="json")
    assert_error(response, 400, "invalid_request_error", "balance_insufficient")
    assert api.post("/v1/payouts", {**BODY, "amount": 20000}, format="json").status_code == 201
    assert api.get("/v1/balance").json()["available"][0] == {"currency": "CDF", "amount": 0}
    response = api.post("/v1/payouts", {**BODY, "amount": 100}, format="json")
    assert_error(response, 400, "invalid_request_error", "balance_insufficient")


@pytest.mark.parametrize(
    "change, code, param",
    [
        ({"amount": 5050}, "amount_invalid", "amount"),
        ({"amount": "5000"}, "amount_invalid", "amount"),
        ({"amount": 0}, "amount_invalid", "amount"),
        ({"currency": "EUR"}, "currency_not_supported", "currency"),
        ({"phone": "0812345678"}, "phone_invalid", "phone"),
        ({"phone": "+243971234567"}, "phone_network_mismatch", "phone"),
        ({"network": "MTN"}, "parameter_invalid", "network"),
        ({"description": "x" * 1001}, "parameter_invalid", "description"),
        ({"callback_url": "http://169.254.169.254/"}, "url_invalid", "callback_url"),
        ({"card_number": "4111111111111111"}, "card_data_forbidden", "card_number"),
        ({"iban": "CD00"}, "parameter_unknown", "iban"),
    ],
)
def test_payout_requests_are_validated_like_charges(api, funded, change, code, param):
    response = api.post("/v1/payouts", {**BODY, **change}, format="json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["param"]) == (code, param)
    assert Payout.objects.count() == 0


@pytest.mark.parametrize("missing", ["amount", "currency", "phone", "network"])
def test_payout_required_fields(api, funded, missing):
    body = {k: v for k, v in BODY.items() if k != missing}
    response = api.post("/v1/payouts", body, format="json")
    assert response.status_code == 400
    assert (response.json()["error"]["code"], response.json()["error"]["param"]) == (
        "parameter_missing",
        missing,
    )


def test_live_payouts_need_approval_then_payout_credentials(live_api, merchant, settings):
    response = live_api.post("/v1/payouts", BODY, format="json")
    assert_error(response, 403, "permission_error", "live_mode_not_approved")
    merchant.live_approved = True
    merchant.save()
    response = live_api.post("/v1/payouts", BODY, format="json")
    assert_error(response, 503, "api_error", "provider_unavailable")
    assert Payout.objects.count() == 0


def test_an_idempotent_retry_makes_one_payout_and_reserves_once(api, funded):
    headers = {"HTTP_IDEMPOTENCY_KEY": "payout-7"}
    first = api.post("/v1/payouts", BODY, format="json", **headers)
    again = api.post("/v1/payouts", BODY, format="json", **headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.content == first.content
    assert again["Idempotent-Replayed"] == "true"
    assert Payout.objects.count() == 1
    assert LedgerEntry.objects.filter(type="payout").count() == 1
    other = api.post("/v1/payouts", {**BODY, "amount": 6000}, format="json", **headers)
    assert_error(other, 400, "idempotency_error", "idempotency_key_reused")


def test_payouts_list_filters_and_scoping(api, live_api, funded, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    phones = ["+243812345001", "+243812345678", "+243812345678"]  # 001: refused by the operator
    ids = [
        api.post("/v1/payouts", {**BODY, "amount": 1000, "phone": phone}, format="json").json()[
            "id"
        ]
        for phone in phones
    ]
    payouts.payout_send(payout_id=ids[0])
    assert payouts.payout_refresh(payout_id=ids[0]).status == "failed"
    body = api.get("/v1/payouts").json()
    assert (body["object"], body["url"]) == ("list", "/v1/payouts")
    assert [p["id"] for p in body["data"]] == ids[::-1]
    assert [p["id"] for p in api.get("/v1/payouts?status=failed").json()["data"]] == [ids[0]]
    assert api.get("/v1/payouts?network=AIRTEL_MONEY").json()["data"] == []
    page = api.get("/v1/payouts?limit=1").json()
    assert page["has_more"] is True
    nxt = api.get(f"/v1/payouts?limit=2&starting_after={page['data'][0]['id']}").json()
    assert [p["id"] for p in nxt["data"]] == ids[1::-1]
    assert api.get("/v1/payouts?status=done").status_code == 400
    assert live_api.get("/v1/payouts").json()["data"] == []
    assert_error(
        live_api.get(f"/v1/payouts/{ids[0]}"), 404, "invalid_request_error", "resource_missing"
    )
