"""Live operators reporting a succeeded charge paid again under another transaction id: Orange's
and Airtel's callbacks are checked with the operator (not confirmed: kept for staff; confirmed:
given back once, also when the first check heard nothing and the sweep asks again), M-Pesa
confirms a second payment by its transaction id and reverses that one. Never a second prompt."""

import json

import pytest

from payments import tasks
from payments.models import Charge, ExtraPayment, Refund
from payments.services import charges, ledger, refunds
from tests.factories import answered_mpesa_charge, charge_via_api, paid_orange_charge
from tests.fakes.base import Response
from tests.fakes.orange import API

pytestmark = pytest.mark.django_db

ORANGE = {"amount": 250000, "currency": "CDF", "phone": "+243851234567", "network": "ORANGE_MONEY"}
MPESA = {"amount": 1000, "currency": "USD", "phone": "+243812345678", "network": "VODACOM_MPESA"}
AIRTEL = {"amount": 250000, "currency": "CDF", "phone": "+243971234567", "network": "AIRTEL_MONEY"}
AIRTEL_CALLBACK = "/providers/airtel_money/callback"


def paid_airtel_charge(airtel, client) -> Charge:
    """A live Airtel Money charge the customer approved: its enquiry answered TS."""
    airtel.enquiries_before_answer = 0
    created = charge_via_api(client, **AIRTEL)
    charges.charge_request_payment(charge_id=created.id)
    paid = charges.charge_refresh(charge_id=created.id)
    assert paid.status == "succeeded"
    assert paid.provider_reference == airtel.transactions[paid.id]["airtel_money_id"]
    return paid


def airtel_callback(airtel, client, charge: Charge, money_id: str, status_code: str = "TS"):
    """Airtel's callback about our transaction, naming the Airtel Money transaction `money_id`,
    hashed with the app settings' key; the tasks it queues run once it commits."""
    body = airtel.signed(
        {
            "id": charge.id,
            "message": "Paiement réussi" if status_code == "TS" else "Échec du paiement",
            "status_code": status_code,
            "airtel_money_id": money_id,
        }
    )
    response = client.post(AIRTEL_CALLBACK, body, content_type="application/json")
    assert response.status_code == 200 and response.json() == {"received": True}


def test_an_orange_callback_naming_another_transaction_is_checked_and_shown_to_staff(
    orange, live_api, client, settings, staff, eager_tasks, django_capture_on_commit_callbacks
):
    charge = paid_orange_charge(orange, live_api, **ORANGE)
    cashouts = len(orange.requests_to("POST", f"{API}/cashout"))
    body = {
        "transactionId": charge.id,
        "status": "SUCCESS",
        "peerId": "851234567",
        "peerIdType": "msisdn",
        "amount": 250000,
        "currency": "CDF",
        "reference": "OM-SECOND-77",
    }
    with django_capture_on_commit_callbacks(execute=True) as queued:
        response = client.post(
            "/providers/orange_money/callback",
            json.dumps(body),
            content_type="application/json",
            HTTP_AUTHORIZATION=settings.ORANGE_CALLBACK_AUTHORIZATION,
        )
    assert response.status_code == 200 and response.json() == {"received": True}
    assert len(queued) == 1  # the check of that transaction, run by the worker
    extra = ExtraPayment.objects.get(charge=charge)
    # Orange answers for our transaction with the payment recorded: the other one is not
    # confirmed, so nothing is given back; staff see it with the answers.
    assert (extra.reference, extra.status, extra.refund) == ("OM-SECOND-77", "unconfirmed", None)
    assert any("reported" in answer for answer in extra.answers)
    assert not Refund.objects.filter(charge=charge).exists()
    charge.refresh_from_db()
    assert charge.status == "succeeded" and charge.provider_reference != "OM-SECOND-77"
    assert len(orange.requests_to("POST", f"{API}/cashout")) == cashouts == 1  # one prompt
    assert orange.requests_to("GET", f"{API}/{charge.id}")  # asked about our transaction
    listed = staff.get("/admin/payments/charge/?late_payment=yes&livemode__exact=1")
    assert [row.id for row in listed.context["cl"].result_list] == [charge.id]
    page = staff.get(f"/admin/payments/charge/{charge.id}/change/", HTTP_ACCEPT_LANGUAGE="en")
    assert "OM-SECOND-77" in page.content.decode()
    assert "Not confirmed by the operator" in page.content.decode()


def test_mpesa_confirms_a_second_payment_by_its_transaction_id_and_reverses_that_one(
    mpesa, live_api
):
    charge = answered_mpesa_charge(mpesa, live_api, "INS-0", **MPESA)
    assert charge.status == "succeeded"
    with mpesa.lock:  # the customer paid a second time, under another M-Pesa transaction
        mpesa.transactions["other-conversation"] = {
            "amount": 10,  # whole units, as M-Pesa counts them
            "currency": "USD",
            "msisdn": "243812345678",
            "transaction_id": "SECOND9",
            "status": "Completed",
            "reversed": 0,
        }
    charges.charge_extra_payment_reported(charge_id=charge.id, reference="SECOND9", answer={})
    extra = charges.charge_extra_payment_check(charge_id=charge.id, reference="SECOND9")
    assert extra.status == "confirmed"
    refunds.refund_send(refund_id=extra.refund.id)
    with mpesa.lock:
        assert mpesa.transactions["other-conversation"]["reversed"] == 10
        first = next(r for k, r in mpesa.transactions.items() if k != "other-conversation")
        assert first["reversed"] == 0
    charge.refresh_from_db()
    assert charge.amount_refunded == 0


def test_an_airtel_callback_naming_another_transaction_is_checked_and_shown_to_staff(
    airtel, live_api, client, staff, eager_tasks, django_capture_on_commit_callbacks
):
    charge = paid_airtel_charge(airtel, live_api)
    first = charge.provider_reference
    enquiries = airtel.enquiries(charge.id)
    with django_capture_on_commit_callbacks(execute=True):
        airtel_callback(airtel, client, charge, "MPFAILED02", status_code="TF")
    assert not ExtraPayment.objects.exists()  # a failed transaction names no payment
    with django_capture_on_commit_callbacks(execute=True) as queued:
        airtel_callback(airtel, client, charge, "MPSECOND01")
    assert len(queued) == 1  # the check of that transaction, run by the worker
    extra = ExtraPayment.objects.get(charge=charge)
    # Airtel answers for our transaction with the payment recorded: the other one is not
    # confirmed, so nothing is given back; staff see it with the answers.
    assert (extra.reference, extra.status, extra.refund) == ("MPSECOND01", "unconfirmed", None)
    assert extra.next_check_at is None  # a definite answer: not asked again
    assert airtel.enquiries(charge.id) == enquiries + 1
    assert not Refund.objects.filter(charge=charge).exists() and airtel.refunds == []
    charge.refresh_from_db()
    assert (charge.status, charge.provider_reference) == ("succeeded", first)
    assert len(airtel.requests_to("POST", "/merchant/v1/payments/")) == 1  # one prompt
    listed = staff.get("/admin/payments/charge/?late_payment=yes&livemode__exact=1")
    assert [row.id for row in listed.context["cl"].result_list] == [charge.id]
    page = staff.get(f"/admin/payments/charge/{charge.id}/change/", HTTP_ACCEPT_LANGUAGE="en")
    assert "MPSECOND01" in page.content.decode()
    assert "Not confirmed by the operator" in page.content.decode()


def test_a_second_airtel_payment_unanswered_at_first_is_asked_again_and_given_back_once(
    airtel, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    settings.RECONCILIATION_BACKOFF = [0]  # the sweep asks again as soon as it runs
    charge = paid_airtel_charge(airtel, live_api)
    first = charge.provider_reference
    attempts = 1 + settings.PROVIDER_HTTP_RETRIES  # every try of the enquiry
    airtel.answer_next(
        "GET", f"/standard/v1/payments/{charge.id}", Response(503, {}), times=attempts
    )
    with django_capture_on_commit_callbacks(execute=True):
        airtel_callback(airtel, client, charge, "MPSECOND01")
    extra = ExtraPayment.objects.get(charge=charge)
    assert (extra.status, extra.check_count) == ("reported", 1)  # Airtel said nothing
    assert extra.next_check_at is not None
    with airtel.lock:  # Airtel's record of our transaction now names the second payment
        airtel.transactions[charge.id]["airtel_money_id"] = "MPSECOND01"
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.charges_extra_payments_check_due() == 1
    extra.refresh_from_db()
    assert (extra.status, extra.next_check_at) == ("confirmed", None)
    refund = extra.refund
    assert (refund.reason, refund.payment_reference, refund.amount) == (
        "late_payment",
        "MPSECOND01",
        250000,
    )
    assert airtel.refunds == [{"airtel_money_id": "MPSECOND01", "amount": 2500}]
    # Nothing more is due, and another callback about it gives nothing back again.
    assert tasks.charges_extra_payments_check_due() == 0
    with django_capture_on_commit_callbacks(execute=True):
        airtel_callback(airtel, client, charge, "MPSECOND01")
    assert Refund.objects.filter(charge=charge).count() == 1
    charge.refresh_from_db()
    assert (charge.status, charge.provider_reference, charge.amount_refunded) == (
        "succeeded",
        first,
        0,
    )
    assert ledger.ledger_check() == []
