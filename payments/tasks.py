"""Celery tasks: one line each, calling a service. Which queue a task goes to, and when, is
decided by payments.services.queues."""

from celery import shared_task

from core.api import idempotency
from payments.services import charges, ledger, payouts, reconciliation, refunds, settlements


@shared_task(acks_late=True)
def charge_request_payment(charge_id: str) -> None:
    charges.charge_request_payment_and_check(charge_id=charge_id)


@shared_task(acks_late=True)
def charge_refresh(charge_id: str) -> None:
    charges.charge_refresh(charge_id=charge_id, unavailable_pending=True)


@shared_task
def charges_poll_due() -> int:
    return charges.charges_poll_due()


@shared_task(acks_late=True)
def charge_reconcile(charge_id: str) -> None:
    charges.charge_reconcile(charge_id=charge_id)


@shared_task(acks_late=True)
def charge_extra_payment_check(charge_id: str, reference: str) -> None:
    charges.charge_extra_payment_check(charge_id=charge_id, reference=reference)


@shared_task
def charges_extra_payments_check_due() -> int:
    return charges.charges_extra_payments_check_due()


@shared_task
def charges_reconcile_due() -> int:
    return charges.charges_reconcile_due()


@shared_task(acks_late=True)
def refund_send(refund_id: str) -> None:
    refunds.refund_send(refund_id=refund_id)


@shared_task(acks_late=True)
def refund_refresh(refund_id: str) -> None:
    refunds.refund_refresh(refund_id=refund_id, unavailable_pending=True)


@shared_task
def refunds_poll_due() -> int:
    return refunds.refunds_poll_due()


@shared_task(acks_late=True)
def payout_send(payout_id: str) -> None:
    payouts.payout_send(payout_id=payout_id)


@shared_task(acks_late=True)
def payout_refresh(payout_id: str) -> None:
    payouts.payout_refresh(payout_id=payout_id)


@shared_task
def payouts_send_unsent() -> int:
    return payouts.payouts_send_unsent()


@shared_task
def payouts_poll_due() -> int:
    return payouts.payouts_poll_due()


@shared_task(acks_late=True)
def settlement_send(settlement_id: str) -> None:
    settlements.settlement_send(settlement_id=settlement_id)


@shared_task(acks_late=True)
def settlement_refresh(settlement_id: str) -> None:
    settlements.settlement_refresh(settlement_id=settlement_id)


@shared_task
def settlements_send_unsent() -> int:
    return settlements.settlements_send_unsent()


@shared_task
def settlements_poll_due() -> int:
    return settlements.settlements_poll_due()


@shared_task
def settlements_schedule_due() -> int:
    return settlements.settlements_schedule_due()


@shared_task
def balance_checkpoint(merchant_id: str, livemode: bool, currency: str) -> None:
    ledger.ledger_checkpoint_due(merchant_id=merchant_id, livemode=livemode, currency=currency)


@shared_task
def idempotency_records_purge() -> int:
    return idempotency.purge_expired()


@shared_task
def statements_from_folder() -> int:
    return reconciliation.statements_from_folder()
