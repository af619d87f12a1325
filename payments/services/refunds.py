"""Refunds: reserving, sending to the provider, checking, settling. The one place a refund's
status changes is refund_apply_outcome.

A refund is made in three steps, so that neither a lock nor a transaction is held while the
provider is asked, and no refund is ever paid without a record of it:
  1. _refund_reserve: under the charge's row lock, check the rules and write the refund as
     `pending`, adding its amount to charge.amount_refunded. Concurrent requests queue on the
     lock, each sees what the others reserved, so the refunds never exceed the charge. A
     merchant's refund draws on the balance like a payout: then, under the merchant's balance
     lock (services.ledger.balance_lock_check, which says the order of the locks), the balance
     of that mode and currency must cover it, and its ledger row (−amount) takes it from there.
  2. ask the provider (outside any transaction; the reservation is committed first). In live
     mode a task does it once the reservation is committed, so the API answers `pending`;
  3. refund_apply_outcome: settle the refund; a failed refund frees its amount again.
If the request dies between 1 and 3, the refund stays pending and the poller asks the provider
about it after REFUND_CHECK_GRACE; a provider with no record of it answers `failed`.
"""

import logging
from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core import events, money
from core.errors import (
    Amount,
    AmountExceedsRefundable,
    ChargeNotRefundable,
    InvalidRequest,
    ProviderUnavailable,
)
from payments import state
from payments.models import (
    MERCHANT_REFUND_REASONS,
    Charge,
    ChargeStatus,
    LedgerType,
    PaymentMethod,
    Refund,
    RefundReason,
    RefundStatus,
)
from payments.providers.base import STAFF_REASON, ProviderOutcome, RefundQuery, RefundRequest
from payments.representations import refund_repr
from payments.services import movements, queues
from payments.services.ledger import balance_lock_check, ledger_record
from payments.services.provider_calls import call_claim, provider_ask, provider_for

logger = logging.getLogger("payments.services")

REFUND_CHECK_GRACE = 300  # longer than any provider call may take
REFUND_POLL_INTERVAL = 30  # between status checks of a pending refund, unless the provider says


def _refunds_partially(charge: Charge) -> bool:
    """Whether the charge's provider takes partial refunds (Airtel refunds whole payments only).
    A provider no longer configured is asked nothing here: sending the refund will tell."""
    try:
        return getattr(provider_for(charge), "partial_refunds", True)
    except ProviderUnavailable:
        return True


@transaction.atomic
def _refund_reserve(
    *,
    charge_id: str,
    amount: int | None,
    reason: str,
    metadata: dict,
    late_payment: bool = False,
) -> Refund | None:
    """late_payment: the service's own full refund of a payment it could not accept, whatever
    the charge's status; None when nothing remains to give back. Merchants' refunds (late_payment
    False) keep every rule: succeeded charges only, never more than what remains refundable,
    never more than the available balance."""
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    remaining = charge.amount - charge.amount_refunded
    drawn_on_balance = not late_payment
    if late_payment:
        if remaining <= 0:
            return None
        amount, reason = remaining, RefundReason.LATE_PAYMENT
        # The late payment's own row covers one refund. Once a refund of it has failed, its
        # money went back to the merchant's balance (refund_failure): giving it back again
        # draws on that balance, as any refund does, and never takes it below zero.
        drawn_on_balance = Refund.objects.filter(
            charge=charge,
            reason=RefundReason.LATE_PAYMENT,
            status=RefundStatus.FAILED,
            payment_reference="",
        ).exists()
    elif charge.status != ChargeStatus.SUCCEEDED:
        raise ChargeNotRefundable(
            _("Only succeeded charges can be refunded; charge %(charge)s is %(status)s.")
            % {"charge": charge.id, "status": charge.status}
        )
    if remaining <= 0:
        raise ChargeNotRefundable(
            _("Charge %(charge)s has already been refunded in full.") % {"charge": charge.id}
        )
    if amount is None:
        amount = remaining
    if type(amount) is not int or amount < 1:
        raise InvalidRequest(
            _("amount must be a positive integer in the smallest currency unit."),
            code="amount_invalid",
            param="amount",
        )
    if charge.payment_method == PaymentMethod.MOBILE_MONEY and not money.is_whole(amount):
        raise InvalidRequest(
            _(
                "Mobile money takes whole units only: a refund of a mobile money charge must be a "
                "multiple of 100 (e.g. 2500 = 25.00)."
            ),
            code="amount_invalid",
            param="amount",
        )
    if amount > remaining:
        raise AmountExceedsRefundable(
            gettext_noop(
                "The amount (%(amount)s) is greater than what remains refundable on charge "
                "%(charge)s (%(remaining)s)."
            ),
            params={
                "amount": Amount(amount, charge.currency),
                "charge": charge.id,
                "remaining": Amount(remaining, charge.currency),
            },
            param="amount",
        )
    if amount != charge.amount and not _refunds_partially(charge):
        raise InvalidRequest(
            gettext_noop(
                "The provider of charge %(charge)s refunds whole payments only: refund it in full "
                "(%(amount)s), without an amount."
            ),
            params={"charge": charge.id, "amount": Amount(charge.amount, charge.currency)},
            code="partial_refund_not_supported",
            param="amount",
        )
    if drawn_on_balance:
        # The charge's row is locked already: the balance lock comes second (see
        # balance_lock_check). A late payment's first refund is covered by its late_payment row.
        balance_lock_check(
            merchant_id=charge.merchant_id,
            livemode=charge.livemode,
            currency=charge.currency,
            amount=amount,
            refused=gettext_noop(
                "The available %(currency)s balance is %(available)s, less than the refund of "
                "%(amount)s."
            ),
        )
    now = timezone.now()
    refund = Refund.objects.create(
        charge=charge,
        merchant_id=charge.merchant_id,
        livemode=charge.livemode,
        amount=amount,
        currency=charge.currency,
        status=RefundStatus.PENDING,
        reason=reason,
        metadata=metadata,
        next_check_at=now + timedelta(seconds=REFUND_CHECK_GRACE),
        created_at=now,
        updated_at=now,
    )
    charge.amount_refunded += amount
    charge.updated_at = now
    charge.save(update_fields=["amount_refunded", "updated_at"])
    ledger_record(type=LedgerType.REFUND, source=refund)
    return refund


def refund_create(
    *,
    charge: Charge,
    amount: int | None = None,
    reason: str = "",
    metadata: dict | None = None,
) -> Refund:
    """Refund a succeeded charge in full (amount omitted) or in part.

    Not one transaction on purpose: see the steps above. A rule that refuses the refund leaves
    nothing behind."""
    reason = reason or ""
    if reason not in ("", *MERCHANT_REFUND_REASONS):
        raise InvalidRequest(
            _("reason must be one of %(reasons)s.")
            % {"reasons": ", ".join(MERCHANT_REFUND_REASONS)},
            param="reason",
        )
    provider_for(charge)  # provider_unavailable before anything is reserved
    refund = _refund_reserve(
        charge_id=charge.pk, amount=amount, reason=reason, metadata=metadata or {}
    )
    if refund.livemode:
        # Real money: the provider is asked only once this reservation is committed (by a task),
        # so a request that is rolled back (an idempotent retry, a crash) can never have paid.
        _send_on_commit(refund)
        return refund
    return refund_send(refund_id=refund.id)


@transaction.atomic
def refund_create_for_late_payment(*, charge_id: str) -> Refund | None:
    """The service's own full refund (reason `late_payment`) of a payment it could not accept,
    whatever the charge's status, sent to the provider by a task once the caller's transaction
    commits. None when nothing remains to give back (its refund succeeded or is under way). Made
    again by staff when the operator refused the first (late_payment_give_back_again)."""
    refund = _refund_reserve(
        charge_id=charge_id,
        amount=None,
        reason=RefundReason.LATE_PAYMENT,
        metadata={},
        late_payment=True,
    )
    if refund is not None:
        _send_on_commit(refund)
    return refund


@transaction.atomic
def refund_create_for_other_payment(*, charge_id: str, payment_reference: str) -> Refund:
    """The service's own full refund (reason `late_payment`) of another payment the provider
    took for the charge (payment_reference: its id there), whatever the charge's status, sent
    to the provider by a task once the caller's transaction commits. Its money never counted
    in the charge: its two ledger rows cancel out (late_payment +amount, refund −amount), and it
    is not counted in amount_refunded, so the merchant can still refund the payment that
    stands in full. The caller holds the charge's row lock and makes it once per payment (the
    refund_other_payment_once constraint refuses a second one while the first is not failed)."""
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    return _other_payment_refund(charge, payment_reference, first=True)


def _other_payment_refund(charge: Charge, payment_reference: str, *, first: bool) -> Refund:
    """Reserve the full refund of another payment of the (locked) charge. The first is covered
    by the payment's own late_payment row; a later one (its first refund failed, which put the
    money in the merchant's balance) draws on the balance like any refund."""
    if not first:
        balance_lock_check(
            merchant_id=charge.merchant_id,
            livemode=charge.livemode,
            currency=charge.currency,
            amount=charge.amount,
            refused=gettext_noop(
                "The available %(currency)s balance is %(available)s, less than the refund of "
                "%(amount)s."
            ),
        )
    now = timezone.now()
    refund = Refund.objects.create(
        charge=charge,
        merchant_id=charge.merchant_id,
        livemode=charge.livemode,
        amount=charge.amount,
        currency=charge.currency,
        status=RefundStatus.PENDING,
        reason=RefundReason.LATE_PAYMENT,
        payment_reference=payment_reference,
        next_check_at=now + timedelta(seconds=REFUND_CHECK_GRACE),
        created_at=now,
        updated_at=now,
    )
    if first:
        ledger_record(type=LedgerType.LATE_PAYMENT, source=refund)
    ledger_record(type=LedgerType.REFUND, source=refund)
    _send_on_commit(refund)
    return refund


@transaction.atomic
def late_payment_give_back_again(*, charge_id: str) -> Refund | None:
    """Staff: a late payment whose refund the operator refused is given back again, in full,
    from the merchant's balance (where the failed refund put it): BalanceInsufficient when the
    merchant has paid it out since. The charge's own late payment first, then each other
    payment of it given back (docs/architecture/money.md). The last refund made, or None when
    the charge has no late payment or nothing remains to give back."""
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    made = None
    if charge.late_payment_at is not None:
        made = refund_create_for_late_payment(charge_id=charge.id)
    others = (
        Refund.objects.filter(charge=charge)
        .exclude(payment_reference="")
        .values_list("payment_reference", flat=True)
        .distinct()
    )
    for reference in sorted(others):
        given_back = Refund.objects.filter(charge=charge, payment_reference=reference).exclude(
            status=RefundStatus.FAILED
        )
        if not given_back.exists():
            made = _other_payment_refund(charge, reference, first=False)
    return made


def _send_on_commit(refund: Refund) -> None:
    # robust: with the broker down the refund still stands; the refund poller sends it.
    transaction.on_commit(lambda: queues.refund_send_enqueue(refund_id=refund.id), robust=True)


def refund_send(*, refund_id: str) -> Refund:
    """Hand a reserved refund to its provider, at most once, and apply the answer. A provider
    that is not connected (its adapter removed from the settings) takes nothing: the refund is
    not claimed, so it stays unsent and its next check sends it once the provider is back."""
    refund = Refund.objects.select_related("charge").get(pk=refund_id)
    charge = refund.charge
    try:
        provider = provider_for(charge)
    except ProviderUnavailable as exc:
        logger.warning("refund %s not sent: %s", refund.id, exc)
        return refund
    if not call_claim(Refund, refund_id):
        return Refund.objects.select_related("charge").get(pk=refund_id)
    request = RefundRequest(
        refund_id=refund.id,
        charge_id=charge.id,
        amount=refund.amount,
        charge_amount=charge.amount,
        currency=refund.currency,
        provider_reference=refund.payment_reference or charge.provider_reference,
        phone=charge.phone,
        network=charge.network,
        metadata=refund.metadata,
    )
    outcome = provider_ask(
        lambda: provider.refund(request),
        action="refund request",
        about=refund.id,
        unavailable_pending=True,
        check_after=REFUND_POLL_INTERVAL,
    )
    return refund_apply_outcome(refund_id=refund.id, outcome=outcome)


def refund_refresh(*, refund_id: str, unavailable_pending: bool = False) -> Refund:
    """Ask the provider where a pending refund stands and apply the answer (the status check).
    With unavailable_pending (the workers' checks), a provider no longer connected says nothing
    and the refund is asked again later; otherwise (staff asking now) ProviderUnavailable is
    raised."""
    refund = Refund.objects.select_related("charge").get(pk=refund_id)
    if refund.status in state.REFUND_FINAL:
        return refund
    if refund.provider_requested_at is None and (
        refund.livemode or refund.reason == RefundReason.LATE_PAYMENT
    ):
        # A refund promised to be sent by a task (live, or a late payment's): the task was lost,
        # send it now.
        return refund_send(refund_id=refund_id)
    if any(STAFF_REASON in answer for answer in refund.provider_raw):
        # Never sent (see payment_reference_unknown): there is nothing to ask, only staff settle it.
        return refund_apply_outcome(
            refund_id=refund.id,
            outcome=ProviderOutcome(status=RefundStatus.PENDING, check_after=3600),
        )
    charge = refund.charge
    query = RefundQuery(
        refund_id=refund.id,
        charge_id=charge.id,
        amount=refund.amount,
        currency=refund.currency,
        provider_reference=refund.provider_reference,
        requested_at=refund.created_at,
        network=charge.network,
    )
    outcome = provider_ask(
        lambda: provider_for(charge).check_refund(query),
        action="status check",
        about=refund.id,
        unavailable_pending=unavailable_pending,
    )
    return refund_apply_outcome(refund_id=refund.id, outcome=outcome, counter="check_count")


def refund_resolve(*, refund_id: str, succeeded: bool, staff: str) -> Refund | None:
    """Staff settle a refund left pending after confirming with the provider (operators that
    publish no refund enquiry). Only a refund already sent to its provider can be settled this
    way; it goes through refund_apply_outcome like any answer: one event, and a failed refund
    gives its amount back to the charge. None when the refund was not waiting for this."""
    refund = Refund.objects.get(pk=refund_id)
    if refund.status != RefundStatus.PENDING or refund.provider_requested_at is None:
        return None
    decision = RefundStatus.SUCCEEDED if succeeded else RefundStatus.FAILED
    logger.warning("refund %s marked %s by staff %s", refund_id, decision, staff)
    outcome = ProviderOutcome(
        status=decision,
        failure_code="" if succeeded else "provider_error",
        failure_message="" if succeeded else "The provider did not complete the refund.",
        raw={"staff": staff, "decision": decision},
    )
    return refund_apply_outcome(refund_id=refund_id, outcome=outcome)


def _charge_then_refund_locked(kind: movements.Kind, refund_id: str) -> Refund:
    """Lock the charge before the refund (the order _refund_reserve takes), because a failed
    refund gives its amount back to the charge."""
    charge_id = Refund.objects.values_list("charge_id", flat=True).get(pk=refund_id)
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    refund = Refund.objects.select_for_update().get(pk=refund_id)
    refund.charge = charge
    return refund


def _amount_freed(refund: Refund, outcome: ProviderOutcome, now) -> list[str]:
    """A failed refund's amount is refundable on its charge again; another payment's refund
    never counted in the charge."""
    if refund.status == RefundStatus.FAILED and not refund.of_other_payment:
        charge = refund.charge
        charge.amount_refunded -= refund.amount
        charge.updated_at = now
        charge.save(update_fields=["amount_refunded", "updated_at"])
    return []


REFUND = movements.Kind(
    name="refund",
    model=Refund,
    transitions=state.REFUND_TRANSITIONS,
    final=state.REFUND_FINAL,
    signal=events.refund_changed,
    represent=refund_repr,
    backoff=lambda refund: (REFUND_POLL_INTERVAL,),
    ledger={RefundStatus.FAILED: LedgerType.REFUND_FAILURE},  # its amount back to the balance
    destination_url=lambda refund: refund.charge.callback_url,
    # A provider's "declined" refund is a failed one: refunds have no declined status.
    aliases={"declined": RefundStatus.FAILED},
    failure_default=("provider_error", "The provider could not complete the refund."),
    lock=_charge_then_refund_locked,
    on_final=_amount_freed,
)


def refund_apply_outcome(
    *, refund_id: str, outcome: ProviderOutcome, counter: str | None = None
) -> Refund:
    """The one place a refund's status changes (services.movements): a final status never
    changes; a failed refund frees its amount on the charge and gives it back to the balance."""
    return movements.movement_apply_outcome(REFUND, pk=refund_id, outcome=outcome, counter=counter)


def refunds_poll_due() -> int:
    """Enqueue a status check for every pending refund whose next check is due."""
    due = queues.due_claim(Refund.objects.filter(status=RefundStatus.PENDING), now=timezone.now())
    for refund_id in due:
        queues.refund_refresh_enqueue(refund_id=refund_id)
    return len(due)
