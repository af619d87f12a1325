"""Live card adapter: Secure Acceptance signing, the Transaction Search and Refund a Payment APIs
with HTTP Signature authentication, recomputed by the local CyberSource."""

from urllib.parse import urlsplit

import pytest

from payments.models import Charge, Refund
from payments.providers.base import InvalidSignature
from payments.providers.cybersource import CyberSourceCard
from payments.services import charges, refunds
from tests.factories import card_charge_via_api, paid_live_card_charge, pending_refund_via_api
from webhooks.models import Event

pytestmark = pytest.mark.django_db


def test_hosted_page_reply_and_status_search(cybersource, live_api):
    cybersource.search_lag = 1  # CyberSource's search lags behind the payment
    body = card_charge_via_api(live_api)
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
    with pytest.raises(InvalidSignature, match="signature does not match"):
        CyberSourceCard().verify_reply({**reply, "req_amount": "0.01"})

    charges.charge_refresh(charge_id=body["id"])
    assert Charge.objects.get(pk=body["id"]).status == "pending"  # not in the search yet
    charges.charge_refresh(charge_id=body["id"])
    charge = Charge.objects.get(pk=body["id"])
    assert charge.status == "succeeded"
    assert charge.provider_reference == reply["transaction_id"]


@pytest.mark.parametrize(
    "outcome, status, failure_code",
    [("decline", "declined", "card_declined"), ("error", "failed", "processing_error")],
)
def test_declines_and_errors_found_by_the_search(
    cybersource, live_api, outcome, status, failure_code
):
    body = card_charge_via_api(live_api)
    cybersource.pay(body["next_action"]["params"], outcome)
    charges.charge_refresh(charge_id=body["id"])
    answer = live_api.get(f"/v1/charges/{body['id']}").json()
    assert (answer["status"], answer["failure_code"]) == (status, failure_code)


def test_a_wrong_shared_secret_fails_the_http_signature(cybersource, live_api, settings):
    body = card_charge_via_api(live_api)
    cybersource.pay(body["next_action"]["params"], "accept")
    settings.CARD_REST_SHARED_SECRET = "d3JvbmctbGl2ZS1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZg=="
    charges.charge_refresh(charge_id=body["id"])
    charge = Charge.objects.get(pk=body["id"])
    assert charge.status == "pending" and "HTTP 401" in charge.provider_raw[-1]["error"]
    assert set(cybersource.violations) == {"HTTP Signature does not verify"}
    cybersource.violations.clear()


def test_a_found_payment_of_another_amount_is_not_taken_as_ours(cybersource, live_api):
    body = card_charge_via_api(live_api)
    params = dict(body["next_action"]["params"])
    cybersource.pay(params, "accept")
    cybersource.transactions[0]["orderInformation"]["amountDetails"]["totalAmount"] = "0.01"
    charges.charge_refresh(charge_id=body["id"])
    assert Charge.objects.get(pk=body["id"]).status == "pending"


def test_partial_and_final_refunds_reach_cybersource_once(cybersource, live_api):
    charge = paid_live_card_charge(cybersource, live_api)
    first = pending_refund_via_api(live_api, charge, 500)
    sent = refunds.refund_send(refund_id=first["id"])
    refunds.refund_send(refund_id=first["id"])  # a duplicated task sends nothing more
    assert sent.status == "succeeded"
    credits = cybersource.refunds_of(charge.provider_reference)
    assert [c["orderInformation"]["amountDetails"] for c in credits] == [
        {"totalAmount": "5.00", "currency": "USD"}
    ]
    assert credits[0]["clientReferenceInformation"]["code"] == first["id"]
    assert sent.provider_reference == credits[0]["id"]

    rest = pending_refund_via_api(live_api, charge)  # what remains: 14.99
    refunds.refund_send(refund_id=rest["id"])
    assert live_api.get(f"/v1/refunds/{rest['id']}").json()["status"] == "succeeded"
    assert live_api.get(f"/v1/charges/{charge.id}").json()["amount_refunded"] == 1999
    assert len(cybersource.refunds_of(charge.provider_reference)) == 2
    assert Event.objects.filter(type="refund.succeeded", livemode=True).count() == 2
    again = live_api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json")
    assert again.json()["error"]["code"] == "charge_not_refundable"


def test_a_refused_credit_fails_the_refund_and_frees_its_amount(cybersource, live_api):
    charge = paid_live_card_charge(cybersource, live_api)
    cybersource.refund_mode = "refuse"
    refused = refunds.refund_send(refund_id=pending_refund_via_api(live_api, charge)["id"])
    assert (refused.status, refused.failure_code) == ("failed", "provider_error")
    assert "does not accept refunds" in refused.failure_message
    assert refused.provider_raw[-1]["reason"] == "ACCOUNT_NOT_ALLOWED_CREDIT"  # kept for staff
    body = live_api.get(f"/v1/refunds/{refused.id}").json()
    assert "ACCOUNT_NOT_ALLOWED_CREDIT" not in str(body)  # never shown to the merchant
    assert live_api.get(f"/v1/charges/{charge.id}").json()["amount_refunded"] == 0

    cybersource.refund_mode = "accept"
    again = refunds.refund_send(refund_id=pending_refund_via_api(live_api, charge)["id"])
    assert again.status == "succeeded" and again.amount == 1999


@pytest.mark.parametrize("mode", ["hang", "server_error"])
def test_a_lost_answer_stays_pending_until_the_search_finds_the_credit(
    cybersource, live_api, settings, mode
):
    charge = paid_live_card_charge(cybersource, live_api)
    cybersource.refund_mode = mode
    settings.PROVIDER_HTTP_TIMEOUT = 1
    lost = refunds.refund_send(refund_id=pending_refund_via_api(live_api, charge, 700)["id"])
    cybersource.released.set()
    assert lost.status == "pending" and lost.provider_requested_at is not None
    assert len(cybersource.refunds_of(charge.provider_reference)) == 1  # it did reach CyberSource

    cybersource.search_lag = cybersource.searches + 1  # the search lags behind the credit
    assert refunds.refund_refresh(refund_id=lost.id).status == "pending"
    found = refunds.refund_refresh(refund_id=lost.id)
    assert found.status == "succeeded"
    assert found.provider_reference == cybersource.refunds_of(charge.provider_reference)[0]["id"]
    assert len(cybersource.refunds_of(charge.provider_reference)) == 1  # never sent again


def test_a_refund_cybersource_never_saw_is_not_failed_by_guesswork(cybersource, live_api, settings):
    charge = paid_live_card_charge(cybersource, live_api)
    rest_url = settings.CARD_REST_BASE_URL
    settings.CARD_REST_BASE_URL = "http://127.0.0.1:9"  # unreachable while sending
    unsent = refunds.refund_send(refund_id=pending_refund_via_api(live_api, charge)["id"])
    assert unsent.status == "pending"
    settings.CARD_REST_BASE_URL = rest_url
    checked = refunds.refund_refresh(refund_id=unsent.id)
    assert checked.status == "pending" and checked.next_check_at is not None
    assert "Business Center" in checked.provider_raw[-1]["refund"]
    assert cybersource.refunds_of(charge.provider_reference) == []
    assert live_api.get(f"/v1/charges/{charge.id}").json()["amount_refunded"] == 1999


def test_a_wrong_shared_secret_leaves_the_refund_pending_and_sends_it_once(
    cybersource, live_api, settings
):
    charge = paid_live_card_charge(cybersource, live_api)
    settings.CARD_REST_SHARED_SECRET = "d3JvbmctbGl2ZS1zZWNyZXQtMDEyMzQ1Njc4OWFiY2RlZg=="
    pending = refunds.refund_send(refund_id=pending_refund_via_api(live_api, charge)["id"])
    # A 401 says nothing we may act on alone: pending for the search or staff, never failed.
    assert (pending.status, pending.failure_code) == ("pending", "")
    assert cybersource.refunds_of(charge.provider_reference) == []
    assert cybersource.violations == ["HTTP Signature does not verify"]  # one request, not two
    cybersource.violations.clear()
    assert Refund.objects.get(pk=pending.id).charge.amount_refunded == charge.amount


def test_the_reply_brought_back_by_the_browser_triggers_the_search(cybersource, live_api, client):
    body = card_charge_via_api(live_api)
    reply = cybersource.pay(body["next_action"]["params"], "accept")
    tampered = client.post("/card/receipt", {**reply, "req_amount": "0.01"})
    assert tampered.status_code == 400
    assert cybersource.searches == 0  # a reply that does not verify asks CyberSource nothing

    response = client.post("/card/receipt", reply)
    assert response.status_code == 200
    assert cybersource.searches == 1
    charge = Charge.objects.get(pk=body["id"])
    assert charge.status == "succeeded" and charge.provider == "cybersource"
    assert Event.objects.filter(type="charge.succeeded", livemode=True).count() == 1


def test_the_merchant_post_settles_the_payment_without_the_browser(cybersource, live_api, client):
    body = card_charge_via_api(live_api)
    params = body["next_action"]["params"]
    notify = params["override_backoffice_post_url"]
    assert notify.endswith("/card/notify")
    assert "override_backoffice_post_url" in params["signed_field_names"].split(",")
    reply = cybersource.pay(params, "accept")  # verifies our signature over it too

    # The customer closes the page; CyberSource posts the same reply to our Merchant POST URL.
    path = urlsplit(notify).path
    forged = client.post(path, {**reply, "signature": "A" * 43 + "="})
    assert forged.status_code == 400 and forged.json()["received"] is False
    assert forged.json()["error"]["code"] == "card_reply_invalid"
    assert Charge.objects.get(pk=body["id"]).status == "pending"
    for _ in range(2):  # a repeated notification changes nothing more
        response = client.post(path, reply)
        assert response.status_code == 200 and response.json() == {"received": True}
    assert Charge.objects.get(pk=body["id"]).status == "succeeded"
    assert Event.objects.filter(type="charge.succeeded", livemode=True).count() == 1


@pytest.mark.parametrize(
    "reason, amounts, status, failure_code",
    [
        ("110", {"totalAmount": "19.99", "authorizedAmount": "5.00"}, "failed", "partial_approval"),
        ("110", {"totalAmount": "19.99"}, "failed", "partial_approval"),
        ("100", {"totalAmount": "19.99", "authorizedAmount": "5.00"}, "failed", "amount_mismatch"),
        ("100", {"currency": "USD"}, "pending", ""),  # accepted, for an amount it does not say
        ("100", {"totalAmount": "19.99", "authorizedAmount": "19.99"}, "succeeded", ""),
    ],
)
def test_only_the_whole_amount_approved_is_a_success(
    cybersource, live_api, reason, amounts, status, failure_code
):
    body = card_charge_via_api(live_api)
    cybersource.pay(body["next_action"]["params"], "accept")
    found = cybersource.transactions[0]
    found["applicationInformation"]["reasonCode"] = reason
    found["orderInformation"]["amountDetails"] = {"currency": "USD", **amounts}
    charge = charges.charge_refresh(charge_id=body["id"])
    assert (charge.status, charge.failure_code) == (status, failure_code)
    if status != "pending":
        assert charge.provider_reference == found["id"]  # staff find what was taken


def test_the_shared_card_mapping_refuses_a_partial_approval():
    from payments.providers.sandbox import card_outcome

    partial = card_outcome("ACCEPT", "110", "T1", {})
    assert (partial.status, partial.failure_code) == ("failed", "partial_approval")
    assert card_outcome("ACCEPT", "100", "T1", {}).status == "succeeded"
