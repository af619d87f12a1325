"""POST /v1/charges: the happy paths and the response shapes."""

import pytest
from django.conf import settings

from payments.providers import secure_acceptance
from payments.services import charges
from sandbox.models import SandboxTransaction
from webhooks.models import Event

pytestmark = pytest.mark.django_db

MM = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


def test_mobile_money_creation_response_has_exactly_the_interface_fields(api):
    response = api.post(
        "/v1/charges",
        {**MM, "description": "Commande 42", "metadata": {"order": "42"}},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == {
        "id",
        "object",
        "livemode",
        "amount",
        "currency",
        "phone",
        "network",
        "status",
        "description",
        "metadata",
        "created_at",
        "updated_at",
    }
    assert body["id"].startswith("ch_") and len(body["id"]) == 27
    assert body["object"] == "charge" and body["status"] == "pending" and body["livemode"] is False
    assert body["created_at"].endswith("Z")


def test_card_creation_response_has_exactly_the_interface_fields(api):
    response = api.post(
        "/v1/charges", {"amount": 1999, "currency": "USD", "payment_method": "card"}, format="json"
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == {
        "id",
        "object",
        "livemode",
        "status",
        "amount",
        "currency",
        "payment_method",
        "next_action",
    }
    action = body["next_action"]
    assert action["type"] == "provider_redirect"
    assert action["payment_url"] == "http://127.0.0.1:8000/sandbox/card/pay"
    params = action["params"]
    assert params["reference_number"] == body["id"]
    assert (
        params["amount"] == "19.99"
        and params["currency"] == "USD"
        and params["transaction_type"] == "sale"
    )
    assert all(isinstance(v, str) for v in params.values())
    secure_acceptance.verify(params, settings.SANDBOX_CARD_SECRET_KEY)


def test_mobile_money_charge_is_sent_once_and_settles_through_the_status_check(merchant, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    charge = charges.charge_create(merchant=merchant, livemode=False, **MM)
    charges.charge_request_payment(charge_id=charge.id)
    charges.charge_request_payment(charge_id=charge.id)  # a duplicated task sends nothing more
    assert SandboxTransaction.objects.get(reference=charge.id).request_count == 1
    charges.charge_refresh(charge_id=charge.id)
    charge.refresh_from_db()
    assert charge.status == "succeeded"
    assert charge.finalized_at is not None
    assert list(Event.objects.filter(merchant=merchant).values_list("type", flat=True)) == [
        "charge.succeeded"
    ]
    charges.charge_refresh(charge_id=charge.id)  # a final status never changes, no second event
    assert Event.objects.filter(merchant=merchant).count() == 1
