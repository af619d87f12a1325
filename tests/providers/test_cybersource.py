"""Live card adapter: Secure Acceptance signing and the Transaction Search API with HTTP
Signature authentication, recomputed by the local CyberSource."""

import pytest

from payments import services
from payments.models import Charge
from payments.providers.base import InvalidSignature, RefundRequest
from payments.providers.cybersource import CyberSourceCard

pytestmark = pytest.mark.django_db


def create(live_api) -> dict:
    response = live_api.post(
        "/v1/charges", {"amount": 1999, "currency": "USD", "payment_method": "card"}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_hosted_page_reply_and_status_search(cybersource, live_api):
    cybersource.search_lag = 1  # CyberSource's search lags behind the payment
    body = create(live_api)
    action = body["next_action"]
    assert action["payment_url"] == "https://secureacceptance.cybersource.com/pay"
    assert action["params"]["access_key"] == cybersource.access_key

    reply = cybersource.pay(action["params"], "accept")
    verified = CyberSourceCard().verify_reply(reply)
    assert (verified.decision, verified.reference_number, verified.amount) == (
        "ACCEPT",
        body["id"],
        "19.99",
    )
    with pytest.raises(InvalidSignature):
        CyberSourceCard().verify_reply({**reply, "req_amount": "0.01"})

    services.charge_refresh(charge_id=body["id"])
    assert Charge.objects.get(pk=body["id"]).status == "pending"  # not in the search yet
    services.charge_refresh(charge_id=body["id"])
    charge = Charge.objects.get(pk=body["id"])
    assert charge.status == "succeeded"
    assert charge.provider_reference == reply["transaction_id"]

    refund = CyberSourceCard().refund(
        RefundRequest(
            refund_id="re_x",
            charge_id=charge.id,
            amount=charge.amount,
            charge_amount=charge.amount,
            currency="USD",
            provider_reference=charge.provider_reference,
        )
    )
    assert (refund.status, refund.failure_code) == ("failed", "refund_not_supported")


@pytest.mark.parametrize(
    "outcome, status, failure_code",
    [("decline", "declined", "card_declined"), ("error", "failed", "processing_error")],
)
def test_declines_and_errors_found_by_the_search(
    cybersource, live_api, outcome, status, failure_code
):
    body = create(live_api)
    cybersource.pay(body["next_action"]["params"], outcome)
    services.charge_refresh(charge_id=body["id"])
    answer = live_api.get(f"/v1/charges/{body['id']}").json()
    assert (answer["status"], answer["failure_code"]) == (status, failure_code)


def test_a_wrong_shared_secret_fails_the_http_signature(cybersource, live_api, settings):
    body = create(live_api)
    cybersource.pay(body["next_action"]["params"], "accept")
    settings.CARD_REST_SHARED_SECRET = "d3JvbmctbGl2ZS1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZg=="
    services.charge_refresh(charge_id=body["id"])
    charge = Charge.objects.get(pk=body["id"])
    assert charge.status == "pending" and "HTTP 401" in charge.provider_raw[-1]["error"]
    assert set(cybersource.violations) == {"HTTP Signature does not verify"}
    cybersource.violations.clear()


def test_a_found_payment_of_another_amount_is_not_taken_as_ours(cybersource, live_api):
    body = create(live_api)
    params = dict(body["next_action"]["params"])
    cybersource.pay(params, "accept")
    cybersource.transactions[0]["orderInformation"]["amountDetails"]["totalAmount"] = "0.01"
    services.charge_refresh(charge_id=body["id"])
    assert Charge.objects.get(pk=body["id"]).status == "pending"
