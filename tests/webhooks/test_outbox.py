"""The outbox: an event and its delivery exist only if the change committed; nothing is sent from
inside the transaction."""

import pytest
from django.db import transaction

from payments.models import Charge
from payments.providers.base import ProviderOutcome
from payments.services import charge_apply_outcome
from tests.factories import make_charge, record_event
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
