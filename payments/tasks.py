"""Celery tasks: thin wrappers that call services."""

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from payments import services
from payments.api import idempotency
from payments.models import Charge, ChargeStatus, PaymentMethod, Refund, RefundStatus
from payments.providers import registry

POLL_BATCH = 200
UNSENT_GRACE = 30  # a mobile money charge not handed to its operator after this is re-sent
# Operators whose live payment call blocks until the customer has answered on the phone.
BLOCKING_NETWORKS = registry.blocking_networks()


def payment_request_queue(*, livemode: bool, network: str) -> str | None:
    """The queue of a charge's payment request: blocking live calls go to PAYMENTS_LONG_QUEUE,
    the rest to the default queue (None)."""
    if livemode and network in BLOCKING_NETWORKS:
        return settings.PAYMENTS_LONG_QUEUE
    return None


def enqueue_payment_request(charge: Charge) -> None:
    charge_request_payment.apply_async(
        (charge.id,), queue=payment_request_queue(livemode=charge.livemode, network=charge.network)
    )


def _claim_due(queryset, now, *, field: str = "next_check_at", push: float = 60) -> list[str]:
    """Ids of the rows of queryset whose `field` (a due time) has come (oldest first, one batch),
    with it pushed out so the next sweep does not enqueue them again. A row whose due time was
    cleared meanwhile is left cleared."""
    due_now = {f"{field}__lte": now}
    due = list(queryset.filter(**due_now).order_by(field).values_list("id", flat=True)[:POLL_BATCH])
    queryset.model.objects.filter(pk__in=due, **due_now).update(
        **{field: now + timedelta(seconds=push)}
    )
    return due


@shared_task(acks_late=True)
def charge_request_payment(charge_id: str) -> None:
    services.charge_request_payment(charge_id=charge_id)
    charge = Charge.objects.filter(pk=charge_id).values("next_check_at", "status").first()
    if charge and charge["status"] == ChargeStatus.PENDING and charge["next_check_at"]:
        charge_refresh.apply_async((charge_id,), eta=charge["next_check_at"])


@shared_task(acks_late=True)
def charge_refresh(charge_id: str) -> None:
    services.charge_refresh(charge_id=charge_id)


@shared_task
def charges_poll_due() -> int:
    """Enqueue a status check for every pending charge whose next check is due, and re-send
    mobile money requests a lost task never delivered — unless their deadline (counted from
    creation while unsent) has passed: those fail `timeout` here, never sent."""
    now = timezone.now()
    due = _claim_due(Charge.objects.filter(status=ChargeStatus.PENDING), now)
    for charge_id in due:
        charge_refresh.delay(charge_id)
    too_late = now - timedelta(seconds=settings.MOBILE_MONEY_PROMPT_TIMEOUT)
    unsent = (
        Charge.objects.filter(
            status=ChargeStatus.PENDING,
            payment_method=PaymentMethod.MOBILE_MONEY,
            provider_requested_at__isnull=True,
            created_at__lte=now - timedelta(seconds=UNSENT_GRACE),
        )
        .order_by("created_at")
        .only("id", "livemode", "network", "created_at")[:POLL_BATCH]
    )
    for charge in unsent:
        if charge.created_at <= too_late:
            services.charge_fail_unsent(charge_id=charge.id)
        else:
            enqueue_payment_request(charge)
    return len(due)


@shared_task(acks_late=True)
def charge_reconcile(charge_id: str) -> None:
    services.charge_reconcile(charge_id=charge_id)


@shared_task
def charges_reconcile_due() -> int:
    """Enqueue the reconciliation check of every charge whose next one is due."""
    due = _claim_due(Charge.objects.all(), timezone.now(), field="reconcile_next_at", push=300)
    for charge_id in due:
        charge_reconcile.delay(charge_id)
    return len(due)


@shared_task(acks_late=True)
def refund_send(refund_id: str) -> None:
    services.refund_send(refund_id=refund_id)


@shared_task(acks_late=True)
def refund_refresh(refund_id: str) -> None:
    services.refund_refresh(refund_id=refund_id)


@shared_task
def refunds_poll_due() -> int:
    """Enqueue a status check for every pending refund whose next check is due."""
    due = _claim_due(Refund.objects.filter(status=RefundStatus.PENDING), timezone.now())
    for refund_id in due:
        refund_refresh.delay(refund_id)
    return len(due)


@shared_task
def idempotency_records_purge() -> int:
    """Delete stored Idempotency-Key answers whose 24 h are over."""
    return idempotency.records_purge_expired()
