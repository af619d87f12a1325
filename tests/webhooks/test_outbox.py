"""The outbox: an event and its delivery exist only if the change committed; nothing is sent from
inside the transaction."""

import pytest
from django.db import transaction

from checkout import services as checkout_services
from payments.models import Charge, Payout, Refund
from payments.providers.base import ProviderOutcome
from payments.services import charge_apply_outcome
from payments.services.payouts import payout_apply_outcome
from payments.services.refunds import refund_apply_outcome, refund_create
from tests.factories import (
    make_charge,
    make_session,
    record_event,
    sent_payout,
    settled_charges,
    succeeded_card_charge,
)
from webhooks.models import Delivery, Event
from webhooks.services import delivery_attempt, endpoint_get, event_record

pytestmark = pytest.mark.django_db


class Boom(Exception):
    pass


def test_rolled_back_change_leaves_no_event_no_delivery_and_sends_nothing(
    merchant, receiver, django_capture_on_commit_callbacks
):
    charge = make_charge(merchant, callback_url=receiver.url())
    with django_capture_on_commit_callbacks() as callbacks, pytest.raises(Boom):
        with transaction.atomic():
            charge_apply_outcome(charge_id=charge.id, outcome=ProviderOutcome(status="succeeded"))
            assert Event.objects.count() == 1  # written inside the change's transaction
            raise Boom
    assert callbacks == []
    assert Event.objects.count() == 0
    assert Delivery.objects.count() == 0
    assert Charge.objects.get(pk=charge.id).status == "pending"
    assert receiver.received == []


def test_committed_change_writes_event_and_delivery_and_enqueues_after_commit(
    merchant, receiver, django_capture_on_commit_callbacks
):
    charge = make_charge(merchant, callback_url=receiver.url())
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        charge_apply_outcome(charge_id=charge.id, outcome=ProviderOutcome(status="succeeded"))
        assert receiver.received == []
    event = Event.objects.get()
    delivery = Delivery.objects.get()
    assert (event.type, delivery.event_id, delivery.url) == (
        "charge.succeeded",
        event.id,
        receiver.url(),
    )
    assert (delivery.status, delivery.attempts) == ("pending", 0)
    assert len(callbacks) == 1  # the delivery task, enqueued only once the change commits
    assert receiver.received == []


def test_event_without_destination_is_kept_not_delivered(merchant):
    assert endpoint_get(merchant=merchant, livemode=False).url == ""
    event = record_event(merchant, url="")
    assert Event.objects.filter(pk=event.id).exists()
    assert not Delivery.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_event_record_refuses_to_run_outside_a_transaction(merchant):
    with pytest.raises(RuntimeError, match="inside the transaction of the state change"):
        event_record(merchant=merchant, livemode=False, type="charge.succeeded", data={})


def test_a_held_delivery_is_not_sent_twice(merchant, receiver):
    event = record_event(merchant, url=receiver.url())
    delivery = event.deliveries.get()
    assert delivery_attempt(delivery_id=delivery.id).status == "succeeded"
    assert delivery_attempt(delivery_id=delivery.id) is None  # already delivered
    assert len(receiver.received) == 1


def test_a_rolled_back_session_completion_leaves_the_session_open_and_no_event(merchant):
    """The charge's event reaches checkout/ (the session completes) and the outbox in the charge's
    transaction: rolled back, the session is open again and neither event exists."""
    session = make_session(merchant)
    charge = checkout_services.session_attempt_create(
        session_id=session.id,
        payment_method="mobile_money",
        phone="+243812345678",
        network="VODACOM_MPESA",
    )
    with pytest.raises(Boom):
        with transaction.atomic():
            charge_apply_outcome(charge_id=charge.id, outcome=ProviderOutcome(status="succeeded"))
            assert sorted(Event.objects.values_list("type", flat=True)) == [
                "charge.succeeded",
                "checkout.session.completed",
            ]
            raise Boom
    session.refresh_from_db()
    assert session.status == "open" and session.succeeded_charge_id is None
    assert not Event.objects.exists()


def test_a_rolled_back_refund_or_payout_change_leaves_no_event(merchant):
    charge = succeeded_card_charge(merchant, amount=50000)
    refund = refund_create(charge=charge, amount=1000, metadata={"sandbox_refund": "pending"})
    settled_charges(merchant, "VODACOM_MPESA", {"succeeded": 2})
    payout = sent_payout(merchant, amount=1000)
    before = set(Event.objects.values_list("pk", flat=True))
    with pytest.raises(Boom):
        with transaction.atomic():
            refund_apply_outcome(refund_id=refund.id, outcome=ProviderOutcome(status="failed"))
            payout_apply_outcome(payout_id=payout.id, outcome=ProviderOutcome(status="succeeded"))
            new = Event.objects.exclude(pk__in=before).values_list("type", flat=True)
            assert sorted(new) == ["payout.succeeded", "refund.failed"]
            raise Boom
    assert set(Event.objects.values_list("pk", flat=True)) == before
    assert Refund.objects.get(pk=refund.id).status == "pending"
    assert Payout.objects.get(pk=payout.id).status == "pending"
