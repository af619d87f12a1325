"""Checkout and late payments: a session cannot be expired under a pending
attempt; a success the session cannot accept is refunded in full and never sent to success_url;
the customer's page says the money will be returned, in French and English."""

import pytest

from checkout import services
from payments.models import Charge, Refund
from payments.services import charges
from tests.factories import expire_session, make_session, settle
from webhooks.models import Event

pytestmark = pytest.mark.django_db

MM = {"payment_method": "mobile_money", "phone": "+243812345678", "network": "VODACOM_MPESA"}
RETURNED_FR = "Votre argent vous sera rendu"
RETURNED_EN = "Your money will be returned"


def late_refunds(charge):
    return list(Refund.objects.filter(charge=charge).values_list("reason", "amount"))


@pytest.mark.parametrize("method", ["mobile_money", "card"])
def test_expire_is_refused_while_an_attempt_is_pending(api, merchant, method):
    session = make_session(merchant, currency="USD", amount=2000)
    attempt = {**MM, "payment_method": method} if method == "mobile_money" else {}
    charge = services.session_attempt_create(
        session_id=session.id, **(attempt or {"payment_method": "card"})
    )
    response = api.post(f"/v1/checkout/sessions/{session.id}/expire")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["type"], error["code"]) == (
        "invalid_request_error",
        "checkout_session_payment_pending",
    )
    session.refresh_from_db()
    assert session.status == "open"
    assert not Event.objects.filter(type="checkout.session.expired").exists()
    # Once the attempt has settled without success, the merchant may expire the session.
    settle(charge, "failed", "canceled")
    assert api.post(f"/v1/checkout/sessions/{session.id}/expire").json()["status"] == "expired"


def test_a_success_on_an_expired_session_is_refunded_and_never_sent_to_success_url(
    client, merchant
):
    session = make_session(merchant)
    charge = services.session_attempt_create(session_id=session.id, **MM)
    expire_session(session)
    charge = settle(charge, "succeeded")
    assert charge.status == "succeeded"  # it was paid…
    assert charge.late_payment_at is not None
    assert late_refunds(charge) == [("late_payment", session.amount)]  # …and is given back
    assert charge.amount_refunded == session.amount
    session.refresh_from_db()
    assert session.status == "expired" and session.succeeded_charge_id is None

    page = client.get(f"/pay/{session.id}?attempt={charge.id}")
    assert page.status_code == 410  # the expired page, not a redirect to success_url
    assert RETURNED_FR in page.text and 'data-state="late-payment"' in page.text
    english = client.get(f"/pay/{session.id}?attempt={charge.id}&lang=en")
    assert RETURNED_EN in english.text
    status = client.get(f"/pay/{session.id}/status?attempt={charge.id}").json()
    assert status["next"] == f"/pay/{session.id}?attempt={charge.id}"


def test_a_second_success_on_a_complete_session_is_refunded(client, merchant):
    session = make_session(merchant)
    # Two attempts in flight at once (only possible around the one-attempt rule, e.g. an old
    # attempt): both are paid.
    first, second = (
        charges.charge_create(
            merchant=merchant,
            livemode=False,
            amount=session.amount,
            currency=session.currency,
            phone=MM["phone"],
            network=MM["network"],
            checkout_session=session,
        )
        for _ in range(2)
    )
    settle(first, "succeeded")
    second = settle(second, "succeeded")
    session.refresh_from_db()
    assert session.status == "complete" and session.succeeded_charge_id == first.id
    assert second.status == "succeeded" and late_refunds(second) == [("late_payment", 250000)]
    assert late_refunds(first) == []
    assert Event.objects.filter(type="checkout.session.completed").count() == 1

    page = client.get(f"/pay/{session.id}?attempt={second.id}")  # the complete page, no redirect
    assert page.status_code == 200 and RETURNED_FR in page.text
    status = client.get(f"/pay/{session.id}/status?attempt={second.id}").json()
    assert (status["status"], status["next"]) == (
        "succeeded",
        f"/pay/{session.id}?attempt={second.id}",
    )
    kept = client.get(f"/pay/{session.id}?attempt={first.id}")
    assert kept.status_code == 302 and kept["Location"].startswith("https://shop.example.cd/merci")


def test_a_late_payment_of_a_timed_out_attempt_leaves_the_session_open(client, merchant):
    session = make_session(merchant)
    charge = services.session_attempt_create(session_id=session.id, **MM)
    settle(charge, "failed", "timeout")
    charge = settle(charge, "succeeded")  # the operator reports it paid after all
    assert charge.status == "failed" and late_refunds(charge) == [("late_payment", 250000)]
    session.refresh_from_db()
    assert session.status == "open"
    page = client.get(f"/pay/{session.id}?attempt={charge.id}&lang=en")
    assert page.status_code == 200
    assert RETURNED_EN in page.text
    assert 'data-method="mobile_money"' in page.text  # the customer may still pay again
    assert Charge.objects.filter(checkout_session=session).count() == 1
