"""A card charge nobody completes fails with `abandoned` after CARD_PAYMENT_TIMEOUT."""

from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from payments.models import Charge
from payments.services import charges
from tests.factories import card_charge_via_api
from tests.helpers import pay, refund_event_types

pytestmark = pytest.mark.django_db


@pytest.fixture
def traveller():
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        yield traveller


def test_pending_card_charge_is_abandoned_after_the_timeout(api, settings, traveller):
    settings.CARD_PAYMENT_TIMEOUT = 3600
    body = card_charge_via_api(api)
    traveller.shift(timedelta(seconds=3599))
    assert charges.charge_refresh(charge_id=body["id"]).status == "pending"
    traveller.shift(timedelta(seconds=1))
    charges.charge_refresh(charge_id=body["id"])
    got = api.get(f"/v1/charges/{body['id']}").json()
    assert got["status"] == "failed" and got["failure_code"] == "abandoned"
    assert "next_action" not in got


def test_page_opened_but_left_undecided_is_abandoned_too(api, settings, traveller):
    settings.CARD_PAYMENT_TIMEOUT = 600
    body = card_charge_via_api(api)
    Client().post("/sandbox/card/pay", body["next_action"]["params"])
    traveller.shift(timedelta(seconds=601))
    assert charges.charge_refresh(charge_id=body["id"]).failure_code == "abandoned"


def test_a_decision_made_in_time_wins_over_the_timeout(api, settings, traveller):
    settings.CARD_PAYMENT_TIMEOUT = 600
    body = card_charge_via_api(api)
    pay(Client(), body["next_action"]["params"], "accept")  # the receipt never reached us
    traveller.shift(timedelta(seconds=601))
    charges.charge_refresh(charge_id=body["id"])
    assert Charge.objects.get(pk=body["id"]).status == "succeeded"


def test_charges_under_review_are_abandoned_at_the_timeout(api, settings, traveller):
    settings.CARD_PAYMENT_TIMEOUT = 600
    body = card_charge_via_api(api)
    pay(Client(), body["next_action"]["params"], "review")
    assert charges.charge_refresh(charge_id=body["id"]).status == "pending"
    traveller.shift(timedelta(seconds=600))
    assert charges.charge_refresh(charge_id=body["id"]).failure_code == "abandoned"


def test_a_card_page_completed_after_the_timeout_is_refunded_in_full(
    api, settings, traveller, django_capture_on_commit_callbacks, eager_tasks
):
    """The customer pays in a tab left open after we abandoned the charge: the provider took the
    money, so the charge stays failed and the whole amount goes back (a late payment)."""
    settings.CARD_PAYMENT_TIMEOUT = 600
    body = card_charge_via_api(api)
    traveller.shift(timedelta(seconds=601))
    abandoned = charges.charge_refresh(charge_id=body["id"])
    assert (abandoned.status, abandoned.failure_code) == ("failed", "abandoned")
    assert abandoned.reconcile_next_at is not None  # still asked about

    browser = Client()  # the tab left open on the card page
    action, reply = pay(browser, body["next_action"]["params"], "accept")
    with django_capture_on_commit_callbacks(execute=True):
        response = browser.post(urlsplit(action).path, reply)
    assert response.status_code == 200
    charge = Charge.objects.get(pk=body["id"])
    assert (charge.status, charge.failure_code) == ("failed", "abandoned")
    assert charge.late_payment_at is not None and charge.reconcile_next_at is None
    (refund,) = charge.refunds.all()
    assert (refund.reason, refund.amount, refund.status) == ("late_payment", 1999, "succeeded")
    assert refund_event_types(refund.id) == ["refund.succeeded"]
    assert api.get(f"/v1/charges/{body['id']}").json()["amount_refunded"] == 1999


def test_an_abandoned_card_charge_nobody_paid_is_asked_about_until_the_window_closes(
    api, settings, traveller
):
    settings.CARD_PAYMENT_TIMEOUT = 600
    body = card_charge_via_api(api)
    traveller.shift(timedelta(seconds=601))
    charges.charge_refresh(charge_id=body["id"])
    traveller.shift(timedelta(seconds=settings.RECONCILIATION_WINDOW))
    charge = charges.charge_reconcile(charge_id=body["id"])  # the provider has nothing
    assert (charge.status, charge.failure_code) == ("failed", "abandoned")
    assert charge.reconcile_next_at is None and charge.late_payment_at is None
    assert not charge.refunds.exists()
