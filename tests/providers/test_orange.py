"""Orange Money live adapter (B2B RDC cashout) against a local Orange API."""

import json

import pytest

from payments import services
from payments.models import Charge
from payments.providers.base import RefundRequest
from payments.providers.orange import OrangeMoney

pytestmark = pytest.mark.django_db

CHARGE = {"amount": 50000, "currency": "CDF", "phone": "+243851234567", "network": "ORANGE_MONEY"}
CALLBACK = "/providers/orange_money/callback"


def create(live_api) -> Charge:
    response = live_api.post("/v1/charges", CHARGE, format="json")
    assert response.status_code == 201, response.content
    return Charge.objects.get(pk=response.json()["id"])


def status_queries(orange, charge_id: str) -> int:
    return [r.path for r in orange.log].count(f"/orange-money-b2b/v1/cd/transactions/{charge_id}")


def test_cashout_callback_and_confirming_status(
    orange, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    orange.queries_before_answer = 99  # only the customer's answer settles it
    charge = create(live_api)
    services.charge_request_payment(charge_id=charge.id)
    record = orange.transactions[charge.id]
    assert record["peerId"] == "851234567" and record["amount"] == 500
    charge.refresh_from_db()
    assert charge.status == "pending" and charge.provider_reference == record["transactionId"]

    body = orange.answer(charge.id)  # the customer confirms on the handset; Orange calls back
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"{CALLBACK}?notif_token={settings.ORANGE_NOTIF_TOKEN}",
            json.dumps(body),
            content_type="application/json",
        )
        assert response.status_code == 200 and response.json() == {"received": True}
        assert status_queries(orange, charge.id) == 0  # answered at once; the query is queued
    charge.refresh_from_db()
    assert charge.status == "succeeded" and status_queries(orange, charge.id) == 1
    assert orange.token_requests == 1

    refund = OrangeMoney().refund(
        RefundRequest(
            refund_id="re_x",
            charge_id=charge.id,
            amount=charge.amount,
            charge_amount=charge.amount,
            currency="CDF",
            provider_reference=charge.provider_reference,
        )
    )
    assert (refund.status, refund.failure_code) == ("failed", "refund_not_supported")


def test_callback_with_a_wrong_token_is_ignored(
    orange, live_api, client, django_capture_on_commit_callbacks
):
    charge = create(live_api)
    services.charge_request_payment(charge_id=charge.id)
    body = orange.answer(charge.id)
    with django_capture_on_commit_callbacks() as queued:
        for url, payload in (
            (f"{CALLBACK}?notif_token=guess", body),
            (CALLBACK, {**body, "notif_token": "guess"}),
            (CALLBACK, body),
        ):
            response = client.post(url, json.dumps(payload), content_type="application/json")
            assert response.status_code == 401
    assert queued == []
    assert status_queries(orange, charge.id) == 0
    assert Charge.objects.get(pk=charge.id).status == "pending"


def test_callbacks_are_refused_when_no_token_is_configured(orange, live_api, client, settings):
    settings.ORANGE_NOTIF_TOKEN = ""
    response = client.post(CALLBACK, "{}", content_type="application/json")
    assert response.status_code == 403


def test_failed_cashout_found_by_the_poller(orange, live_api):
    orange.outcomes["851234567"] = ("FAILED", "E-INSUFFICIENT")
    orange.queries_before_answer = 1
    charge = create(live_api)
    services.charge_request_payment(charge_id=charge.id)
    services.charge_refresh(charge_id=charge.id)
    assert Charge.objects.get(pk=charge.id).status == "pending"  # first query: still PENDING
    services.charge_refresh(charge_id=charge.id)
    body = live_api.get(f"/v1/charges/{charge.id}").json()
    assert (body["status"], body["failure_code"]) == ("failed", "provider_error")
    assert "E-INSUFFICIENT" in body["failure_message"]


def test_wrong_client_secret_never_reaches_the_cashout(orange, live_api, settings):
    settings.ORANGE_CLIENT_SECRET = "wrong"
    charge = create(live_api)
    services.charge_request_payment(charge_id=charge.id)
    assert Charge.objects.get(pk=charge.id).status == "pending"
    assert orange.transactions == {}
    assert set(orange.violations) == {"token: Basic auth with client id and secret expected"}
    orange.violations.clear()
