"""A delivery carries its event's merchant and mode, and a merchant's waiting deliveries (the one a
slot given back wakes, a backlog's batch) come from one index of the deliveries, in order, without
the events: however old the statistics. A delivery written by the release before these columns,
during an upgrade, is still sent, and has them filled in then."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from tests.factories import merchant_with_keys, record_event
from webhooks import services
from webhooks.models import Delivery

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("webhooks", "0007_payout_batch_events")]
AFTER = [("webhooks", "0009_delivery_waiting_index")]


def test_a_delivery_carries_its_events_merchant_and_mode(merchant):
    test = record_event(merchant, url="https://shop.example.cd/hooks").deliveries.get()
    live = record_event(merchant, url="https://shop.example.cd/hooks", livemode=True)
    live = live.deliveries.get()
    assert (test.merchant_id, test.livemode) == (merchant.id, False)
    assert (live.merchant_id, live.livemode) == (merchant.id, True)


def test_a_delivery_written_without_them_is_sent_and_has_them_filled_in(merchant, receiver):
    delivery = record_event(merchant, url=receiver.url()).deliveries.get()
    Delivery.objects.filter(pk=delivery.pk).update(merchant=None, livemode=None)

    sent = services.delivery_send(delivery_id=delivery.pk)

    assert sent.status == "succeeded"
    assert [r.headers["webhook-id"] for r in receiver.verified()] == [delivery.event_id]
    delivery.refresh_from_db()
    assert (delivery.merchant_id, delivery.livemode) == (merchant.id, False)


def test_the_migration_fills_in_the_deliveries_already_written(migrate_to):
    apps = migrate_to(BEFORE)
    Merchant = apps.get_model("payments", "Merchant")
    Event = apps.get_model("webhooks", "Event")
    Delivery = apps.get_model("webhooks", "Delivery")
    merchant = Merchant.objects.create(id="mer_" + "w" * 24, name="Pharmacie Gombe")
    made = {}
    for livemode, status in ((False, "pending"), (True, "succeeded")):
        event = Event.objects.create(
            id=f"evt_{'w' * 23}{livemode:d}", merchant=merchant, livemode=livemode,
            type="charge.succeeded", data={},
        )  # fmt: skip
        made[livemode] = Delivery.objects.create(
            event=event, url="https://pharmacie.example.cd/hooks", status=status
        ).pk

    Delivery = migrate_to(AFTER).get_model("webhooks", "Delivery")
    owners = {
        pk: (m, live)
        for pk, m, live in Delivery.objects.values_list("pk", "merchant_id", "livemode")
    }
    assert owners == {made[False]: (merchant.id, False), made[True]: (merchant.id, True)}


@pytest.mark.postgres
def test_the_waiting_deliveries_come_from_their_index_in_order(merchant):
    """Statistics taken during a backlog of five merchants (every delivery pending), then most
    deliveries sent: the wake-up's query walks delivery_merchant_waiting_idx from the merchant's oldest
    due delivery and stops at the first it can take, and neither it nor the batch's claim reads
    the events (they joined every pending delivery to its event: with such statistics, a second
    each on a backlog of thousands)."""
    others = [merchant_with_keys(name=f"Boutique {n}").merchant for n in range(4)]
    for owner in (*others, merchant):
        for _ in range(100):
            record_event(owner, url="https://shop.example.cd/hooks")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE webhooks_delivery, webhooks_event")
    past = timezone.now() - timedelta(seconds=30)
    Delivery.objects.update(next_attempt_at=past)
    mine = Delivery.objects.filter(merchant=merchant).order_by("-id").values("pk")[:20]
    Delivery.objects.exclude(pk__in=mine).update(status="succeeded")

    with CaptureQueriesContext(connection) as wake:
        oldest = services._oldest_waiting(merchant_id=merchant.id, livemode=False)
    with CaptureQueriesContext(connection) as claim:
        batch = services._claim_backlog(
            url="https://shop.example.cd/hooks", merchant_id=merchant.id, livemode=False,
            besides=oldest,
        )  # fmt: skip

    waiting = Delivery.objects.filter(merchant=merchant, status="pending").order_by("id")
    assert [oldest, *batch] == list(waiting.values_list("pk", flat=True))
    plans = {}
    for name, sql in (
        ("wake", wake[0]["sql"]),
        ("claim", next(q["sql"] for q in claim if "FOR UPDATE" in q["sql"])),
    ):
        with connection.cursor() as cursor:
            cursor.execute("EXPLAIN " + sql)
            plans[name] = "\n".join(row[0] for row in cursor.fetchall())
        assert "webhooks_event" not in plans[name] and "Seq Scan" not in plans[name], plans[name]
    assert "Index Scan using delivery_merchant_waiting_idx" in plans["wake"], plans["wake"]
    assert "Sort" not in plans["wake"], plans["wake"]
