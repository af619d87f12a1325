"""Payouts: money sent from the merchant's balance to a mobile money wallet. The one place a
payout's status changes is payout_apply_outcome.

  1. payout_create: under the merchant's balance lock, check that the balance of that mode and
     currency holds the amount, write the payout `pending` and its ledger row (−amount) in one
     transaction, so concurrent payouts queue on the lock and never take the balance below zero.
  2. payout_send (a task, once that has committed): claim the payout's one call to the operator
     (provider_requested_at, set by an atomic UPDATE, so it is made at most once whatever the
     broker redelivers), then make it.
  3. payout_apply_outcome: settle it; a failed payout gives its amount back (ledger +amount).
An answer that says nothing leaves the payout pending and the poller asks the operator again
(payout_refresh), with a growing wait, for RECONCILIATION_WINDOW; after that staff decide.
A payout is never failed by our own clock: the operator may have paid.
"""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_noop

from core import events
from core.errors import ApiPayoutsDisabled, LiveModeNotApproved, ProviderUnavailable
from payments import pricing, state
from payments.models import (
    LedgerType,
    Merchant,
    PaymentMethod,
    Payout,
    PayoutStatus,
    PricingKind,
)
from payments.providers import registry
from payments.providers.base import (
    PayoutNotSent,
    PayoutQuery,
    PayoutRequest,
    ProviderError,
    ProviderOutcome,
)
from payments.representations import payout_repr
from payments.services import movements, networks, queues
from payments.services.ledger import balance_lock_check, ledger_record
from payments.services.provider_calls import call_claim, provider_ask

logger = logging.getLogger("payments.services")

PAYOUT_SEND_GRACE = 30  # a payout not handed to its operator after this is sent by the sweep
# The waits after the payout is sent, then after each status check (check_count).
PAYOUT_BACKOFF = (30, 60, 120, 300, 600, 1800, 3600)


def payout_fee(
    *,
    merchant: Merchant,
    amount: int,
    currency: str,
    network: str,
    plan: list[pricing.Rate] | None = None,
) -> int:
    """What a payout of this amount to this network costs by the merchant's plan now (`plan`,
    pricing.plan_of(merchant), when the caller prices many payouts at once)."""
    rate = pricing.rate_in(
        plan if plan is not None else pricing.plan_of(merchant),
        kind=PricingKind.PAYOUT,
        payment_method=PaymentMethod.MOBILE_MONEY,
        network=network or "",
        currency=currency,
    )
    return rate.fee(amount)


@transaction.atomic
def payout_create(
    *,
    merchant: Merchant,
    livemode: bool,
    amount: int,
    currency: str,
    phone: str,
    network: str,
    description: str = "",
    metadata: dict | None = None,
    callback_url: str = "",
) -> Payout:
    if livemode and not merchant.live_approved:
        raise LiveModeNotApproved()
    networks.network_check_payable(
        network=network, livemode=livemode, amount=amount, currency=currency
    )
    adapter = registry.payouts(livemode=livemode, network=network)  # 503 when not configured
    fee = payout_fee(merchant=merchant, amount=amount, currency=currency, network=network)
    # The balance lock and check of the amount and its fee (lock order:
    # services.ledger.balance_lock_check).
    balance_lock_check(
        merchant_id=merchant.pk,
        livemode=livemode,
        currency=currency,
        amount=amount + fee,
        refused=gettext_noop(
            "The available %(currency)s balance is %(available)s, less than the %(amount)s "
            "this payout takes with its fee."
        )
        if fee
        else gettext_noop(
            "The available %(currency)s balance is %(available)s, less than the payout of %(amount)s."
        ),
    )
    now = timezone.now()
    payout = Payout.objects.create(
        merchant=merchant,
        livemode=livemode,
        amount=amount,
        currency=currency,
        phone=phone,
        network=network,
        fee=fee,
        description=description,
        metadata=metadata or {},
        callback_url=callback_url,
        provider=adapter.name,
        next_check_at=now + timedelta(seconds=PAYOUT_SEND_GRACE),
        created_at=now,
        updated_at=now,
    )
    ledger_record(type=LedgerType.PAYOUT, source=payout)
    # robust: with the broker down the payout still stands; the sweep sends it.
    transaction.on_commit(lambda: queues.payout_send_enqueue(payout_id=payout.id), robust=True)
    return payout


def payout_by_api_check(*, merchant: Merchant, livemode: bool, api_key) -> None:
    """POST /v1/payouts: a live key pays out only while the owner's security setting "payouts
    by API" is on (the dashboard's answer, core.events.api_payout_creating), else 403
    api_payouts_disabled. Test keys always may."""
    if not livemode:
        return
    answers = events.api_payout_creating.send(sender=Payout, instance=merchant, api_key=api_key)
    if any(answer is False for _receiver, answer in answers):
        raise ApiPayoutsDisabled()


def _request(payout: Payout) -> PayoutRequest:
    return PayoutRequest(
        reference=payout.id,
        amount=payout.amount,
        currency=payout.currency,
        phone=payout.phone,
        network=payout.network,
        description=payout.description,
    )


def payout_send(*, payout_id: str) -> Payout:
    """Hand the payout to its operator, at most once."""
    if not call_claim(Payout, payout_id):
        return Payout.objects.get(pk=payout_id)
    payout = Payout.objects.get(pk=payout_id)
    try:
        adapter = registry.payouts(livemode=payout.livemode, network=payout.network)
        outcome = adapter.send_payout(_request(payout))
    except (PayoutNotSent, ProviderUnavailable) as exc:
        # Nothing was sent: give the call back so that the sweep makes it later.
        logger.warning("payout %s not sent: %s", payout.id, exc)
        Payout.objects.filter(pk=payout.id, status=PayoutStatus.PENDING).update(
            provider_requested_at=None,
            next_check_at=timezone.now() + timedelta(seconds=PAYOUT_SEND_GRACE),
        )
        return Payout.objects.get(pk=payout_id)
    except ProviderError as exc:  # the call was made: whatever happened, the status decides
        logger.warning("payout %s: %s", payout.id, exc)
        outcome = ProviderOutcome(status=PayoutStatus.PENDING, raw={"error": str(exc)})
    return payout_apply_outcome(payout_id=payout.id, outcome=outcome)


def payout_refresh(*, payout_id: str) -> Payout:
    """Ask the operator where a payout it was handed stands."""
    payout = Payout.objects.get(pk=payout_id)
    if payout.status != PayoutStatus.PENDING or payout.provider_requested_at is None:
        return payout
    query = PayoutQuery(
        reference=payout.id,
        amount=payout.amount,
        currency=payout.currency,
        phone=payout.phone,
        network=payout.network,
        requested_at=payout.provider_requested_at,
        provider_reference=payout.provider_reference,
    )
    outcome = provider_ask(
        lambda: registry.mobile_money(
            livemode=payout.livemode, network=payout.network
        ).payout_status(query),
        action="payout status",
        about=payout.id,
        unavailable_pending=True,
    )
    return payout_apply_outcome(payout_id=payout.id, outcome=outcome, counter="check_count")


def _window_end(payout: Payout):
    """Status checks stop once the reconciliation window is over: staff decide."""
    started = payout.provider_requested_at or payout.created_at
    return started + timedelta(seconds=settings.RECONCILIATION_WINDOW)


PAYOUT = movements.Kind(
    name="payout",
    model=Payout,
    transitions=state.PAYOUT_TRANSITIONS,
    final=state.PAYOUT_FINAL,
    signal=events.payout_changed,
    represent=payout_repr,
    backoff=lambda payout: PAYOUT_BACKOFF,
    ledger={PayoutStatus.FAILED: LedgerType.PAYOUT_FAILURE},  # its amount back to the balance
    checks_until=_window_end,
)


def payout_apply_outcome(
    *, payout_id: str, outcome: ProviderOutcome, counter: str | None = None
) -> Payout:
    """The one place a payout's status changes (services.movements): a final status never
    changes; a failed payout gives its amount back."""
    return movements.movement_apply_outcome(PAYOUT, pk=payout_id, outcome=outcome, counter=counter)


# Handed to the operator, still pending, and no longer asked about automatically: staff decide.
WAITING_FOR_STAFF = Q(
    status=PayoutStatus.PENDING, provider_requested_at__isnull=False, next_check_at__isnull=True
)


def is_waiting_for_staff(payout: Payout) -> bool:
    return (
        payout.status == PayoutStatus.PENDING
        and payout.provider_requested_at is not None
        and payout.next_check_at is None
    )


def payout_resolve(*, payout_id: str, succeeded: bool, staff: str) -> Payout | None:
    """Staff settle a payout the operator could not confirm, once its status checks are over
    (is_waiting_for_staff); None, and nothing changed, for any other payout: one still being
    asked about is the operator's to settle."""
    payout = Payout.objects.get(pk=payout_id)
    if not is_waiting_for_staff(payout):
        return None
    status = PayoutStatus.SUCCEEDED if succeeded else PayoutStatus.FAILED
    outcome = ProviderOutcome(
        status=status,
        failure_code="" if succeeded else "provider_error",
        failure_message="" if succeeded else "The operator did not pay this payout.",
        raw={"resolved_by": staff, "status": status},
    )
    return payout_apply_outcome(payout_id=payout_id, outcome=outcome)


def _enqueue_due(due, enqueue, now) -> int:
    ids = queues.due_claim(due, now=now)
    for payout_id in ids:
        enqueue(payout_id=payout_id)
    return len(ids)


def payouts_send_unsent(*, now=None) -> int:
    """The sweep: payouts never handed to their operator (the broker was down, or the call could
    not be made) are sent now."""
    pending = Payout.objects.filter(status=PayoutStatus.PENDING, provider_requested_at__isnull=True)
    return _enqueue_due(pending, queues.payout_send_enqueue, now or timezone.now())


def payouts_poll_due(*, now=None) -> int:
    """The poller: pending payouts handed to their operator whose next check is due."""
    sent = Payout.objects.filter(status=PayoutStatus.PENDING, provider_requested_at__isnull=False)
    return _enqueue_due(sent, queues.payout_refresh_enqueue, now or timezone.now())
