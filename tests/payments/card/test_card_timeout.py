"""A card charge nobody completes fails with `abandoned` after CARD_PAYMENT_TIMEOUT."""

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from payments.models import Charge
from payments.services import charges
from tests.factories import card_charge_via_api
from tests.helpers import pay

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
