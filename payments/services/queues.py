"""What goes on the broker's queues, and on which: the one module that enqueues payments tasks.

A live payment call that blocks until the customer has answered on the phone goes to its own
queue (PAYMENTS_LONG_QUEUE), so a few slow customers never hold the workers that poll and send
webhooks; everything else goes to the default queue. The periodic sweeps claim what is due here
before enqueueing it, so the next sweep does not enqueue it again.

Each task is sent by its name (core.queues), which raises kombu's OperationalError when the broker
cannot be reached. A caller inside a transaction enqueues from transaction.on_commit (robust: the
sweeps send what a broker out of reach missed), so that no worker looks for a row that is not
committed yet, and nothing is sent for a transaction rolled back.
"""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import QuerySet

from core.queues import enqueue
from payments.models import Charge
from payments.providers import registry

POLL_BATCH = 200  # rows one sweep enqueues at most
# Seconds a row claimed by a sweep waits before a sweep may claim it again, should the task it was
# enqueued for be lost (a worker killed while it held it).
CLAIM_PUSH = 60
# Operators whose live payment call blocks until the customer has answered on the phone.
BLOCKING_NETWORKS = registry.blocking_networks()


def payment_request_queue(*, livemode: bool, network: str) -> str | None:
    """The queue of a charge's payment request: blocking live calls go to PAYMENTS_LONG_QUEUE,
    the rest to the default queue (None)."""
    if livemode and network in BLOCKING_NETWORKS:
        return settings.PAYMENTS_LONG_QUEUE
    return None


def charge_request_payment_enqueue(*, charge: Charge) -> None:
    enqueue(
        "payments.tasks.charge_request_payment",
        charge.id,
        queue=payment_request_queue(livemode=charge.livemode, network=charge.network),
    )


def charge_refresh_enqueue(charge_id: str, *, eta: datetime | None = None) -> None:
    enqueue("payments.tasks.charge_refresh", charge_id, eta=eta)


def charge_reconcile_enqueue(charge_id: str) -> None:
    enqueue("payments.tasks.charge_reconcile", charge_id)


def charge_extra_payment_check_enqueue(*, charge_id: str, reference: str) -> None:
    enqueue("payments.tasks.charge_extra_payment_check", charge_id, reference)


def refund_send_enqueue(*, refund_id: str) -> None:
    enqueue("payments.tasks.refund_send", refund_id)


def refund_refresh_enqueue(refund_id: str) -> None:
    enqueue("payments.tasks.refund_refresh", refund_id)


def payout_send_enqueue(*, payout_id: str) -> None:
    enqueue("payments.tasks.payout_send", payout_id)


def payout_refresh_enqueue(payout_id: str) -> None:
    enqueue("payments.tasks.payout_refresh", payout_id)


def settlement_send_enqueue(*, settlement_id: str) -> None:
    enqueue("payments.tasks.settlement_send", settlement_id)


def settlement_refresh_enqueue(*, settlement_id: str) -> None:
    enqueue("payments.tasks.settlement_refresh", settlement_id)


def balance_checkpoint_enqueue(*, merchant_id: str, livemode: bool, currency: str) -> None:
    enqueue("payments.tasks.balance_checkpoint", merchant_id, livemode, currency)


def due_claim(
    queryset: QuerySet, *, now: datetime, field: str = "next_check_at", push: float = CLAIM_PUSH
) -> list[str]:
    """Ids of the rows of queryset whose `field` (a due time) has come (oldest first, one batch),
    with it pushed out so the next sweep does not enqueue them again. A row whose due time was
    cleared meanwhile is left cleared.

    The rows are claimed under a row lock that skips rows another sweep holds: two sweeps at
    once (two beats) share out the due rows, and neither returns a row the other has."""
    due_now = {f"{field}__lte": now}
    with transaction.atomic():
        due = list(
            queryset.filter(**due_now)
            .order_by(field)
            .select_for_update(skip_locked=True)
            .values_list("id", flat=True)[:POLL_BATCH]
        )
        queryset.model.objects.filter(pk__in=due, **due_now).update(
            **{field: now + timedelta(seconds=push)}
        )
    return due
