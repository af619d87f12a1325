"""Nothing is lost: a delivery whose task never ran (broker down, worker died) is picked up."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from tests.factories import record_event
from tests.helpers import wait_for
from webhooks import tasks
from webhooks.models import Delivery
from webhooks.services import SWEEP_GRACE, deliveries_overdue


@pytest.mark.django_db
def test_sweep_picks_up_a_delivery_whose_task_was_lost(merchant, receiver):
    # Inside the test's transaction the on-commit enqueue never happens: the task is "lost".
    delivery = record_event(merchant, url=receiver.url()).deliveries.get()
    assert deliveries_overdue() == []  # its own task may still come

    later = timezone.now() + timedelta(seconds=SWEEP_GRACE + 1)
    with time_machine.travel(later, tick=False):
        assert deliveries_overdue() == [delivery.id]
        assert deliveries_overdue() == []  # not enqueued again by the next sweep straight away
        tasks.delivery_send(delivery.id)  # what the worker runs for the enqueued task
    delivery.refresh_from_db()
    assert delivery.status == "succeeded"
    assert len(receiver.verified()) == 1


@pytest.mark.django_db
def test_sweep_leaves_held_and_finished_deliveries_alone(merchant, receiver):
    done = record_event(merchant, url=receiver.url()).deliveries.get()
    tasks.delivery_send(done.id)
    # Recorded after the send: a slow send would otherwise take it along as backlog.
    held = record_event(merchant, url=receiver.url()).deliveries.get()
    later = timezone.now() + timedelta(seconds=SWEEP_GRACE + 1)
    Delivery.objects.filter(pk=held.id).update(locked_until=later + timedelta(seconds=30))
    with time_machine.travel(later, tick=False):
        assert deliveries_overdue() == []
    # A hold that expired means the worker holding it died: the delivery is swept again.
    with time_machine.travel(later + timedelta(seconds=31), tick=False):
        assert deliveries_overdue() == [held.id]


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_sweep_re_enqueues_a_lost_task_to_a_real_worker(merchant, receiver, celery_worker_process):
    delivery = record_event(merchant, url=receiver.url()).deliveries.get()
    celery_worker_process()  # purges the queue on start: the enqueued task is lost
    Delivery.objects.filter(pk=delivery.id).update(
        next_attempt_at=timezone.now() - timedelta(seconds=SWEEP_GRACE + 5)
    )
    assert tasks.deliveries_sweep() == 1
    wait_for(lambda: Delivery.objects.get(pk=delivery.id).status == "succeeded", timeout=30)
    assert [r.headers["webhook-id"] for r in receiver.verified()] == [delivery.event_id]
