"""Operators' callbacks only queue the status check: what they queue, what they ignore, and what
happens when Redis is down (payments/provider_callbacks.py)."""

import json
import logging
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from payments import tasks
from payments.models import Charge
from payments.services import charges
from tests.conftest import broker_down

pytestmark = pytest.mark.django_db

AIRTEL_CALLBACK = "/providers/airtel_money/callback"
ORANGE_CALLBACK = "/providers/orange_money/callback"


def live_charge(live_api, phone: str, network: str) -> Charge:
    response = live_api.post(
        "/v1/charges",
        {"amount": 250000, "currency": "CDF", "phone": phone, "network": network},
        format="json",
    )
    assert response.status_code == 201, response.content
    charge = Charge.objects.get(pk=response.json()["id"])
    charges.charge_request_payment(charge_id=charge.id)  # the prompt, as the task sends it
    return charge


def enquiries(airtel, charge_id: str) -> int:
    return [r.path for r in airtel.log].count(f"/standard/v1/payments/{charge_id}")


def post_airtel(client, airtel, charge_id: str):
    body = airtel.callback_body(charge_id, "TS")
    return client.post(AIRTEL_CALLBACK, body, content_type="application/json")


def test_duplicate_callbacks_queue_one_status_check(
    airtel, live_api, client, eager_tasks, django_capture_on_commit_callbacks
):
    airtel.enquiries_before_answer = 99  # the customer has not answered yet
    charge = live_charge(live_api, "+243971234567", "AIRTEL_MONEY")
    with django_capture_on_commit_callbacks(execute=True) as queued:
        for _ in range(5):
            assert post_airtel(client, airtel, charge.id).status_code == 200
    assert len(queued) == 1 and enquiries(airtel, charge.id) == 1
    with django_capture_on_commit_callbacks(execute=True) as queued:
        assert post_airtel(client, airtel, charge.id).status_code == 200  # Airtel retries
    assert queued == [] and enquiries(airtel, charge.id) == 1
    assert Charge.objects.get(pk=charge.id).status == "pending"


def test_a_queued_check_of_a_charge_settled_meanwhile_asks_nothing(
    airtel, live_api, client, eager_tasks, django_capture_on_commit_callbacks
):
    airtel.enquiries_before_answer = 0
    charge = live_charge(live_api, "+243971234567", "AIRTEL_MONEY")
    with django_capture_on_commit_callbacks() as queued:
        assert post_airtel(client, airtel, charge.id).status_code == 200
    charges.charge_refresh(charge_id=charge.id)  # the poller got there first
    assert Charge.objects.get(pk=charge.id).status == "succeeded"
    [publish] = queued
    publish()  # the task runs: the charge is final, Airtel is not asked again
    assert enquiries(airtel, charge.id) == 1


def test_callbacks_for_charges_not_waiting_for_one_queue_nothing(
    airtel, orange, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    airtel.enquiries_before_answer = 0
    settled = live_charge(live_api, "+243971234567", "AIRTEL_MONEY")
    charges.charge_refresh(charge_id=settled.id)
    assert Charge.objects.get(pk=settled.id).status == "succeeded"
    orange_charge = live_charge(live_api, "+243851234567", "ORANGE_MONEY")
    airtel_pending = live_charge(live_api, "+243991234567", "AIRTEL_MONEY")
    orange_url = f"{ORANGE_CALLBACK}?notif_token={settings.ORANGE_NOTIF_TOKEN}"

    with django_capture_on_commit_callbacks() as queued:
        assert post_airtel(client, airtel, settled.id).status_code == 200  # final already
        body = {"transaction": {"id": orange_charge.id, "status_code": "TS"}}
        response = client.post(AIRTEL_CALLBACK, json.dumps(body), content_type="application/json")
        assert response.status_code == 200  # another network's charge
        body = {"partnerTransactionId": airtel_pending.id, "transactionStatus": "SUCCESS"}
        response = client.post(orange_url, json.dumps(body), content_type="application/json")
        assert response.status_code == 200 and response.json() == {"received": True}
    assert queued == []
    assert enquiries(airtel, settled.id) == 1 and enquiries(airtel, airtel_pending.id) == 0


def test_with_redis_down_the_callback_is_acknowledged_and_the_poller_settles_it(
    airtel, live_api, client, caplog, eager_tasks, django_capture_on_commit_callbacks
):
    airtel.enquiries_before_answer = 0
    charge = live_charge(live_api, "+243971234567", "AIRTEL_MONEY")
    with caplog.at_level(logging.INFO, logger="payments.callbacks"), broker_down():
        with django_capture_on_commit_callbacks(execute=True) as queued:
            response = post_airtel(client, airtel, charge.id)
    assert response.status_code == 200 and response.json() == {"received": True}
    assert len(queued) == 1  # the publish was tried, after commit, and failed
    assert "status check not enqueued" in caplog.text and "the poller" in caplog.text
    assert enquiries(airtel, charge.id) == 0
    assert Charge.objects.get(pk=charge.id).status == "pending"

    with time_machine.travel(timezone.now() + timedelta(seconds=10)):
        assert tasks.charges_poll_due() == 1  # beat's charges-poll-due, the safety net
    assert Charge.objects.get(pk=charge.id).status == "succeeded"


def test_a_callback_for_a_charge_failed_by_our_clock_queues_its_reconciliation(
    airtel, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    """The customer approves after our deadline: Airtel's callback must not be dropped as "final
    already" but queue the reconciliation check, which refunds the late payment at once."""
    airtel.enquiries_before_answer = 99  # no answer while our clock runs
    charge = live_charge(live_api, "+243971234567", "AIRTEL_MONEY")
    with time_machine.travel(
        timezone.now() + timedelta(seconds=settings.MOBILE_MONEY_PROMPT_TIMEOUT + 1)
    ):
        charges.charge_refresh(charge_id=charge.id)
        charge.refresh_from_db()
        assert (charge.status, charge.failure_code) == ("failed", "timeout")
        assert charge.reconcile_next_at is not None

        airtel.enquiries_before_answer = 0  # the customer approves late
        before = enquiries(airtel, charge.id)
        with django_capture_on_commit_callbacks(execute=True) as queued:
            assert post_airtel(client, airtel, charge.id).status_code == 200
        assert len(queued) >= 1 and enquiries(airtel, charge.id) == before + 1
    charge.refresh_from_db()
    assert charge.status == "failed" and charge.late_payment_at is not None
    [refund] = charge.refunds.all()
    assert (refund.reason, refund.amount) == ("late_payment", charge.amount)
