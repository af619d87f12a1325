"""A slot given back wakes the merchant's next waiting delivery, and that wake is never lost: a
task woken for a delivery that another task's batch has sent meanwhile wakes the next one in its
stead. Otherwise a one-merchant backlog would drain only as fast as the sweep enqueues it again."""

import socket
import threading

import pytest
from django.db import connection, transaction

from config.celery import app
from tests.factories import record_event
from tests.helpers import backends_waiting_on_a_lock, wait_for
from webhooks import services
from webhooks.models import Delivery

from .test_queue import queued_deliveries

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def test_a_wake_for_a_delivery_already_sent_wakes_the_next(
    merchant, receiver, settings, celery_worker_process
):
    settings.WEBHOOK_ATTEMPTS_AT_ONCE = 1
    receiver.then({"sleep": 1.0})  # the first attempt, to /slow, holds the slot a while
    slow = record_event(merchant, url=receiver.url("/slow")).deliveries.get()
    woken, *rest = [record_event(merchant, url=receiver.url()).deliveries.get() for _ in range(20)]
    # The worker's start empties the queues: these deliveries' tasks are lost, as with a broker
    # that lost them, and no beat runs, so no sweep enqueues them again.
    celery_worker_process(
        name="webhooks", queues=settings.WEBHOOKS_QUEUE, WEBHOOK_ATTEMPTS_AT_ONCE="1"
    )
    node = f"webhooks@{socket.gethostname()}"
    app.control.cancel_consumer(settings.WEBHOOKS_QUEUE, destination=[node], reply=True)

    def attempt_holding_the_slot():
        try:
            services.delivery_send(delivery_id=slow.id)
        finally:
            connection.close()

    holder = threading.Thread(target=attempt_holding_the_slot)
    holder.start()
    wait_for(lambda: receiver.received)  # the slow attempt holds the merchant's one slot
    assert services.delivery_send(delivery_id=woken.id) is None  # no slot: left waiting
    holder.join()
    # The slot given back woke the oldest waiting delivery; before its task runs, another
    # task's batch sends it.
    assert queued_deliveries(settings.REDIS_URL) == [woken.id]
    assert services.delivery_attempt(delivery_id=woken.id).status == "succeeded"

    app.control.add_consumer(settings.WEBHOOKS_QUEUE, destination=[node], reply=True)
    # Long before the sweep could have enqueued the rest (were it running), every one is sent.
    sweep = app.conf.beat_schedule["webhooks-sweep"]["schedule"]
    wait_for(
        lambda: not Delivery.objects.filter(status="pending").exists(),
        timeout=min(sweep, services.SWEEP_GRACE) - 5,
    )
    sent = sorted(r.headers["webhook-id"] for r in receiver.verified())
    assert sent == sorted(d.event_id for d in [slow, woken, *rest])  # each once


@pytest.mark.postgres
def test_two_slots_given_back_at_once_each_wake_a_waiting_delivery(merchant, receiver, settings):
    """Two attempts of one merchant end together while its deliveries wait: each slot given back
    wakes one. (One of the two used to read the waiting mark while the other was replacing it,
    find none and wake nothing: each such moment left the merchant one slot fewer until the
    sweep, and a backlog of thousands drained on one slot.)"""
    from core import slots

    settings.WEBHOOK_ATTEMPTS_AT_ONCE = 2
    holder = f"{merchant.pk}:0"
    waiting = [record_event(merchant, url=receiver.url(f"/{n}")).deliveries.get() for n in range(3)]
    with app.connection_for_write() as broker:
        broker.default_channel.queue_purge(settings.WEBHOOKS_QUEUE)
    held = [slots.take(services.SLOT_KIND, holder, 2) for _ in range(2)]  # two attempts
    assert services.delivery_send(delivery_id=waiting[0].id) is None  # no slot: marked waiting
    for slot in held:
        slot.close()

    # Both wakes are held where they read the deliveries (a table lock), so that neither is
    # done before the other has read the mark.
    locked, release = threading.Event(), threading.Event()

    def hold_the_table():
        try:
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute("LOCK TABLE webhooks_delivery IN ACCESS EXCLUSIVE MODE")
                locked.set()
                release.wait(60)
        finally:
            connection.close()

    def wake():
        try:
            services._wake_next(holder=holder, merchant_id=merchant.pk, livemode=False)
        finally:
            connection.close()

    lock = threading.Thread(target=hold_the_table)
    lock.start()
    assert locked.wait(30)
    first = threading.Thread(target=wake)
    first.start()
    wait_for(lambda: backends_waiting_on_a_lock() == 1)
    second = threading.Thread(target=wake)
    second.start()
    wait_for(lambda: not second.is_alive() or backends_waiting_on_a_lock() == 2)
    release.set()
    for thread in (lock, first, second):
        thread.join(60)
    assert len(queued_deliveries(settings.REDIS_URL)) == 2
