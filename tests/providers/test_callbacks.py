"""Operators' callbacks only queue the status check: what they queue, what they ignore, and what
happens when Redis is down (payments/callbacks/views.py)."""

import json
import logging
from datetime import timedelta

import pytest
import time_machine
from django.core.cache import cache
from django.utils import timezone

from payments import tasks
from payments.callbacks import views
from payments.models import Charge
from payments.services import charges
from tests.factories import charge_via_api, prompt_sent
from tests.helpers import assert_error, broker_down, wait_for

pytestmark = pytest.mark.django_db

AIRTEL_CALLBACK = "/providers/airtel_money/callback"
ORANGE_CALLBACK = "/providers/orange_money/callback"
AIRTEL = {"amount": 250000, "currency": "CDF", "phone": "+243971234567", "network": "AIRTEL_MONEY"}
ORANGE = {"amount": 250000, "currency": "CDF", "phone": "+243851234567", "network": "ORANGE_MONEY"}


def post_airtel(client, airtel, charge_id: str):
    body = airtel.callback_body(charge_id, "TS")
    return client.post(AIRTEL_CALLBACK, body, content_type="application/json")


def test_duplicate_callbacks_queue_one_status_check(
    airtel, live_api, client, eager_tasks, django_capture_on_commit_callbacks
):
    airtel.enquiries_before_answer = 99  # the customer has not answered yet
    charge = prompt_sent(charge_via_api(live_api, **AIRTEL))
    with django_capture_on_commit_callbacks(execute=True) as queued:
        for _ in range(5):
            assert post_airtel(client, airtel, charge.id).status_code == 200
    assert len(queued) == 1 and airtel.enquiries(charge.id) == 1
    with django_capture_on_commit_callbacks(execute=True) as queued:
        assert post_airtel(client, airtel, charge.id).status_code == 200  # Airtel retries
    assert queued == [] and airtel.enquiries(charge.id) == 1
    assert Charge.objects.get(pk=charge.id).status == "pending"


def test_a_queued_check_of_a_charge_settled_meanwhile_asks_nothing(
    airtel, live_api, client, eager_tasks, django_capture_on_commit_callbacks
):
    airtel.enquiries_before_answer = 0
    charge = prompt_sent(charge_via_api(live_api, **AIRTEL))
    with django_capture_on_commit_callbacks() as queued:
        assert post_airtel(client, airtel, charge.id).status_code == 200
    charges.charge_refresh(charge_id=charge.id)  # the poller got there first
    assert Charge.objects.get(pk=charge.id).status == "succeeded"
    [publish] = queued
    publish()  # the task runs: the charge is final, Airtel is not asked again
    assert airtel.enquiries(charge.id) == 1


def test_callbacks_for_charges_not_waiting_for_one_queue_nothing(
    airtel, orange, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    airtel.enquiries_before_answer = 0
    settled = prompt_sent(charge_via_api(live_api, **AIRTEL))
    charges.charge_refresh(charge_id=settled.id)
    assert Charge.objects.get(pk=settled.id).status == "succeeded"
    orange_charge = prompt_sent(charge_via_api(live_api, **ORANGE))
    airtel_pending = prompt_sent(charge_via_api(live_api, **{**AIRTEL, "phone": "+243991234567"}))

    with django_capture_on_commit_callbacks() as queued:
        assert post_airtel(client, airtel, settled.id).status_code == 200  # final already
        body = airtel.signed({"id": orange_charge.id, "status_code": "TS"})
        response = client.post(AIRTEL_CALLBACK, body, content_type="application/json")
        assert response.status_code == 200  # another network's charge
        body = {"transactionId": airtel_pending.id, "status": "SUCCESS", "reference": "MP1"}
        response = client.post(
            ORANGE_CALLBACK,
            json.dumps(body),
            content_type="application/json",
            HTTP_AUTHORIZATION=settings.ORANGE_CALLBACK_AUTHORIZATION,
        )
        assert response.status_code == 200 and response.json() == {"received": True}
    assert queued == []
    assert airtel.enquiries(settled.id) == 1 and airtel.enquiries(airtel_pending.id) == 0


def test_with_redis_down_the_callback_is_acknowledged_and_the_poller_settles_it(
    airtel, live_api, client, caplog, eager_tasks, django_capture_on_commit_callbacks
):
    """With the shared cache out of reach the bound on callback-triggered checks cannot be kept:
    the callback is acknowledged and queues nothing, and the poller settles the charge."""
    airtel.enquiries_before_answer = 0
    charge = prompt_sent(charge_via_api(live_api, **AIRTEL))
    with caplog.at_level(logging.INFO, logger="payments.callbacks"), broker_down():
        with django_capture_on_commit_callbacks(execute=True) as queued:
            response = post_airtel(client, airtel, charge.id)
    assert response.status_code == 200 and response.json() == {"received": True}
    assert queued == []
    assert "status check not enqueued" in caplog.text and "the poller" in caplog.text
    assert airtel.enquiries(charge.id) == 0
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
    charge = prompt_sent(charge_via_api(live_api, **AIRTEL))
    with time_machine.travel(
        timezone.now() + timedelta(seconds=settings.MOBILE_MONEY_PROMPT_TIMEOUT + 1)
    ):
        charges.charge_refresh(charge_id=charge.id)
        charge.refresh_from_db()
        assert (charge.status, charge.failure_code) == ("failed", "timeout")
        assert charge.reconcile_next_at is not None

        airtel.enquiries_before_answer = 0  # the customer approves late
        before = airtel.enquiries(charge.id)
        with django_capture_on_commit_callbacks(execute=True) as queued:
            assert post_airtel(client, airtel, charge.id).status_code == 200
        assert len(queued) == 2 and airtel.enquiries(charge.id) == before + 1
    charge.refresh_from_db()
    assert charge.status == "failed" and charge.late_payment_at is not None
    [refund] = charge.refunds.all()
    assert (refund.reason, refund.amount) == ("late_payment", charge.amount)


def test_a_callback_naming_a_field_twice_is_refused_and_the_poller_settles_the_charge(
    airtel, live_api, client, eager_tasks, django_capture_on_commit_callbacks
):
    """A callback whose JSON says two things at once (a status given twice) decides nothing: it is
    refused in the envelope, and the status check the poller makes anyway asks Airtel."""
    airtel.enquiries_before_answer = 0
    charge = prompt_sent(charge_via_api(live_api, **AIRTEL))
    text = json.dumps(json.loads(airtel.callback_body(charge.id, "TS")))
    twice = text.replace('"status_code": "TS"', '"status_code": "TF", "status_code": "TS"')
    assert twice != text
    with django_capture_on_commit_callbacks(execute=True) as queued:
        response = client.post(AIRTEL_CALLBACK, twice, content_type="application/json")
    assert response.status_code == 400 and response.json()["received"] is False
    assert response.json()["error"]["code"] == "invalid_json"
    assert queued == [] and Charge.objects.get(pk=charge.id).status == "pending"
    charges.charge_refresh(charge_id=charge.id)  # the poller's status check
    assert Charge.objects.get(pk=charge.id).status == "succeeded"


@pytest.mark.parametrize("name", ["vodacom_mpesa", "card", "AIRTEL_MONEY", "no_such_network"])
def test_a_name_no_operator_calls_back_at_answers_404_in_the_envelope(client, name):
    """M-Pesa's payment call is synchronous (no callback), and the card provider posts to /card/:
    only the networks whose adapters read callbacks are served."""
    response = client.post(f"/providers/{name}/callback", "{}", content_type="application/json")
    assert_error(response, 404, "invalid_request_error", "resource_missing")


def test_callback_triggered_status_checks_are_bounded_per_charge(
    airtel, live_api, client, monkeypatch, eager_tasks, django_capture_on_commit_callbacks
):
    """At most one callback-triggered status check per charge in each CHECK_INTERVAL, however many
    callbacks come (here 20 correctly hashed ones, as a replay of a captured callback would be):
    the first claims the interval in the shared cache, the other 19 queue nothing. Once the
    interval has passed, the next 20 queue one more."""
    # Long enough for twenty local callbacks however busy the machine, short enough to wait out.
    monkeypatch.setattr(views, "CHECK_INTERVAL", 3)
    airtel.enquiries_before_answer = 99  # the customer has not answered yet
    charge = prompt_sent(charge_via_api(live_api, **AIRTEL))
    body = airtel.callback_body(charge.id, "TS")
    for round_ in (1, 2):
        with django_capture_on_commit_callbacks(execute=True) as queued:
            for _ in range(20):
                response = client.post(AIRTEL_CALLBACK, body, content_type="application/json")
                assert response.status_code == 200 and response.json() == {"received": True}
        assert len(queued) == 1 and airtel.enquiries(charge.id) == round_
        wait_for(lambda: cache.get(views._window_key(charge.id)) is None, timeout=10)
    assert Charge.objects.get(pk=charge.id).status == "pending"


@pytest.mark.redis
def test_the_interval_is_claimed_atomically_by_one_of_many_callbacks_at_once():
    """Twenty callbacks at the same instant, each in its own thread on its own connection to
    Redis: exactly one claims the interval. Redis's SET NX is what makes the claim atomic; the
    file cache of the embedded set-up checks then writes, so there a few callbacks at the same
    instant may each queue a check (docs/providers/index.md#callbacks)."""
    import threading

    ident = "ch_" + "A" * 24
    cache.delete(views._window_key(ident))
    start = threading.Barrier(20)
    claims = []

    def claim():
        start.wait()
        claims.append(views._claim_interval(ident, "AIRTEL_MONEY"))

    threads = [threading.Thread(target=claim) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(claims) == [False] * 19 + [True]
    cache.delete(views._window_key(ident))
