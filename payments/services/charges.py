"""Charges: creating them, asking their provider, the status checks and their sweeps,
reconciliation of charges failed by our clock, late payments. The one place a charge's status
changes is charge_apply_outcome.

A mobile money charge's prompt is sent by a task once the charge is committed; a card charge's
signed form is made at once. Until a charge is final its provider is asked where it stands, with
growing waits (POLL_BACKOFF), never past its deadline.
"""

import logging
from dataclasses import replace
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from core import events, money, throttles
from core.errors import (
    CardRailDisabled,
    CardReplyRejected,
    LiveModeNotApproved,
    ProviderUnavailable,
)
from core.links import public_url
from payments import pricing, state
from payments.models import (
    Charge,
    ChargeStatus,
    ExtraPayment,
    ExtraPaymentStatus,
    LedgerType,
    Merchant,
    PaymentMethod,
    Refund,
)
from payments.providers import registry
from payments.providers.base import (
    CardPayment,
    InvalidSignature,
    MobileMoneyPayment,
    PaymentQuery,
    PaymentTaken,
    ProviderOutcome,
)
from payments.providers.secure_acceptance import attempt_issued
from payments.representations import charge_repr
from payments.services import movements, networks, queues, refunds
from payments.services.ledger import ledger_record
from payments.services.provider_calls import (
    RAW_HISTORY,
    answer_record,
    provider_ask,
    provider_for,
)

logger = logging.getLogger("payments.services")


def card_receipt_url() -> str:
    return public_url("card-receipt")


def card_notify_url() -> str:
    return public_url("card-notify")


def _check_access(*, merchant: Merchant, livemode: bool, payment_method: str) -> None:
    if livemode and not merchant.live_approved:
        raise LiveModeNotApproved()
    if payment_method == PaymentMethod.CARD and not merchant.card_rail_enabled:
        raise CardRailDisabled()


def charge_create(
    *,
    merchant: Merchant,
    livemode: bool,
    amount: int,
    currency: str,
    payment_method: str = PaymentMethod.MOBILE_MONEY,
    phone: str = "",
    network: str = "",
    description: str = "",
    metadata: dict | None = None,
    callback_url: str = "",
    return_url: str = "",
    checkout_session=None,
    locale: str = "fr",
) -> Charge:
    """Create a pending charge. Mobile money: on a network that takes the amount and is not
    closed (networks.network_check_payable); the prompt is sent by a task once this commits.
    Card: the signed form for the hosted page is made now and kept as next_action. The charge
    is one INSERT after reads, so it needs no transaction of its own: inside a caller's
    (idempotency, checkout) it commits with it."""
    _check_access(merchant=merchant, livemode=livemode, payment_method=payment_method)
    now = timezone.now()
    charge = Charge(
        merchant=merchant,
        livemode=livemode,
        amount=amount,
        currency=currency,
        payment_method=payment_method,
        description=description,
        metadata=metadata or {},
        callback_url=callback_url,
        checkout_session=checkout_session,
        created_at=now,
        updated_at=now,
    )
    if payment_method == PaymentMethod.CARD:
        provider = _card_attempt(charge, locale)
        charge.return_url = return_url
        charge.provider = provider.name
        charge.provider_requested_at = now
        charge.next_check_at = now + timedelta(seconds=CARD_FIRST_CHECK)
        pricing.charge_rate_keep(charge)
        charge.save(force_insert=True)
    else:
        # The limits first, then a closed network, then one without credentials, as for a payout.
        # Staff closing the network while this runs is as if they closed it just after: the
        # check reads what is committed, as a single INSERT … WHERE NOT EXISTS would.
        networks.network_check_payable(
            network=network, livemode=livemode, amount=amount, currency=currency
        )
        provider = registry.mobile_money(livemode=livemode, network=network)
        charge.phone = phone
        charge.network = network
        charge.provider = provider.name
        pricing.charge_rate_keep(charge)
        charge.save(force_insert=True)
        # robust: with the broker down the charge still stands (201); the unsent-charge sweep
        # of charges_poll_due sends its prompt once the broker is back.
        transaction.on_commit(
            lambda: queues.charge_request_payment_enqueue(charge=charge), robust=True
        )
    return charge


def _card_attempt(charge: Charge, locale: str):
    """Sign a fresh attempt (new transaction_uuid and signed_date_time) of a card charge: it
    becomes the charge's provider_attempt and next_action. Signing calls no provider."""
    provider = registry.card(livemode=charge.livemode)
    redirect = provider.start_payment(
        CardPayment(
            charge_id=charge.id,
            amount=charge.amount,
            currency=charge.currency,
            receipt_url=card_receipt_url(),
            cancel_url=card_receipt_url(),
            locale=locale,
            notify_url=card_notify_url() if charge.livemode else "",
        )
    )
    charge.provider_attempt = redirect.attempt
    charge.next_action = {
        "type": "provider_redirect",
        "payment_url": redirect.payment_url,
        "params": redirect.params,
    }
    return provider


@transaction.atomic
def charge_card_new_attempt(*, charge_id: str, locale: str = "fr") -> Charge:
    """The customer goes back to the card payment page: a pending card charge gets a freshly
    signed attempt (the old form would be refused: used transaction_uuid, stale signed time). A
    late reply to the old attempt still verifies and triggers the status check, which decides."""
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    if charge.status != ChargeStatus.PENDING or charge.payment_method != PaymentMethod.CARD:
        return charge
    _card_attempt(charge, locale)
    charge.save(update_fields=["provider_attempt", "next_action"])
    return charge


CARD_FIRST_CHECK = 60  # the receipt usually arrives first and triggers a check at once
POLL_BACKOFF = (5, 10, 20, 30, 60, 120, 300)
# A card payment's result comes back by itself (the customer's return to our receipt page, the
# provider's signed notification), each triggering a check at once: its own checks are a safety
# net, sparse, since each is a search of the provider's transactions (rate-limited on its side)
# and most pending card payments are pages left unfinished: at 1, 5, 15 and 30 minutes, then
# every 30 until the deadline (CARD_PAYMENT_TIMEOUT): 5 searches in the hour.
# Both schedules are the waits after each check, by the number of checks made so far.
CARD_POLL_BACKOFF = (240, 240, 600, 900, 1800)


def _backoff(charge: Charge) -> tuple[int, ...]:
    return CARD_POLL_BACKOFF if charge.payment_method == PaymentMethod.CARD else POLL_BACKOFF


def _lost_request_check_at(now: datetime) -> datetime:
    """When to ask the operator about a prompt claimed at `now` if nothing records its outcome:
    once the longest payment request (the connection, then M-Pesa's wait for the PIN) is over,
    plus the first wait. Recording the outcome replaces it; a worker lost while it asked the
    operator leaves it, and the status sweep (charges_poll_due) then asks, instead of leaving the
    charge pending for good."""
    longest = settings.PROVIDER_HTTP_TIMEOUT + settings.MPESA_TIMEOUT
    return now + timedelta(seconds=longest + POLL_BACKOFF[0])


def charge_request_payment(*, charge_id: str) -> None:
    """Hand a mobile money charge to its operator (sends the prompt), at most once, and only
    before its deadline (counted from creation while unsent): the claim itself
    requires it, so a prompt that comes too late is never sent and the charge fails `timeout`.
    A network whose operator is not connected (its adapter removed from the settings) takes
    nothing: the charge is not claimed, so it stays unsent and the unsent-charge sweep tries
    again until its deadline (then `timeout`, never sent)."""
    charge = Charge.objects.get(pk=charge_id)
    try:
        provider = provider_for(charge)
    except ProviderUnavailable as exc:
        provider = None
        _unsent_unavailable(charge, exc)
    now = timezone.now()
    claimed = provider is not None and Charge.objects.filter(
        pk=charge_id,
        status=ChargeStatus.PENDING,
        provider_requested_at__isnull=True,
        created_at__gt=now - timedelta(seconds=settings.MOBILE_MONEY_PROMPT_TIMEOUT),
    ).update(provider_requested_at=now, next_check_at=_lost_request_check_at(now))
    if not claimed:
        charge_fail_unsent(charge_id=charge_id)
        return
    payment = MobileMoneyPayment(
        charge_id=charge.id,
        amount=charge.amount,
        currency=charge.currency,
        phone=charge.phone,
        network=charge.network,
        description=charge.description,
        callback_url=f"{settings.PUBLIC_BASE_URL}/providers/{charge.network.lower()}/callback",
    )
    # Unknown whether the operator got it: keep it pending and ask for its status later.
    outcome = provider_ask(
        lambda: provider.request_payment(payment),
        action="payment request",
        about=charge.id,
        unavailable_pending=True,
    )
    charge_apply_outcome(charge_id=charge.id, outcome=outcome)


def _unsent_unavailable(charge: Charge, exc: ProviderUnavailable) -> None:
    """Say on a pending, unsent charge (for staff, in its answers) that its operator could not
    be asked, and log it: once, not at every sweep."""
    said = {"error": str(exc)}
    if (
        charge.status != ChargeStatus.PENDING
        or charge.provider_requested_at is not None
        or (charge.provider_raw and charge.provider_raw[-1].get("error") == said["error"])
    ):
        return
    logger.warning("payment request for %s not sent: %s", charge.id, exc)
    fields = answer_record(charge, raw=said, at=timezone.now())
    Charge.objects.filter(pk=charge.id, provider_requested_at__isnull=True).update(
        **{name: getattr(charge, name) for name in fields}
    )


def _query(charge: Charge) -> PaymentQuery:
    return PaymentQuery(
        charge_id=charge.id,
        amount=charge.amount,
        currency=charge.currency,
        provider_reference=charge.provider_reference,
        requested_at=charge.provider_requested_at or charge.created_at,
        phone=charge.phone,
        network=charge.network,
        attempt=charge.provider_attempt,
    )


def _deadline_at(charge: Charge) -> datetime:
    """When a pending charge's time is up. A mobile money deadline runs from the moment the
    prompt was handed to the operator; while the prompt is unsent, from creation."""
    if charge.payment_method == PaymentMethod.CARD:
        limit, start = settings.CARD_PAYMENT_TIMEOUT, charge.created_at
    else:
        limit = settings.MOBILE_MONEY_PROMPT_TIMEOUT
        start = charge.provider_requested_at or charge.created_at
    return start + timedelta(seconds=limit)


def _deadline_outcome(charge: Charge, now: datetime | None = None) -> ProviderOutcome | None:
    """The failure a pending charge gets once its time is up, else None."""
    if (now or timezone.now()) < _deadline_at(charge):
        return None
    if charge.payment_method == PaymentMethod.CARD:
        return ProviderOutcome(
            status=ChargeStatus.FAILED,
            failure_code="abandoned",
            failure_message="The card payment was not completed in time.",
        )
    return ProviderOutcome(
        status=ChargeStatus.FAILED,
        failure_code="timeout",
        failure_message="The customer did not answer the payment prompt in time.",
    )


# A signed card reply can be replayed at will (by the browser, or by anyone who saw it): the
# status checks replies trigger are bounded to one per charge in this many seconds, claimed in the
# shared cache (docs/operations/security.md); the poller still checks on the charge's schedule.
CARD_REPLY_CHECK_INTERVAL = 30


def charge_card_return(*, fields: dict[str, str]) -> Charge:
    """The card provider's reply, posted back through the customer's browser to our receipt page.

    Only a hint: once it verifies and matches the charge, the status check decides, asked at most
    once per CARD_REPLY_CHECK_INTERVAL for a pending charge however often replies come. Raises
    CardReplyRejected (charge untouched) otherwise. Not atomic on purpose: the status check may
    call the provider, which must not happen inside an open transaction."""
    reference = fields.get("req_reference_number", "")
    charge = Charge.objects.filter(pk=reference, payment_method=PaymentMethod.CARD).first()
    if charge is None:
        raise CardReplyRejected(f"no card charge {reference!r}")
    try:
        reply = registry.card(livemode=charge.livemode).verify_reply(fields)
    except (InvalidSignature, ProviderUnavailable) as exc:
        raise CardReplyRejected(f"reply for {charge.id} does not verify: {exc}") from exc
    expected = {
        "req_reference_number": (reply.reference_number, charge.id),
        "req_amount": (reply.amount, money.major_units(charge.amount)),
        "req_currency": (reply.currency, charge.currency),
    }
    if not attempt_issued(charge.id, reply.attempt) and reply.attempt != charge.provider_attempt:
        expected["req_transaction_uuid"] = (reply.attempt, charge.provider_attempt)
    wrong = [name for name, (got, want) in expected.items() if got != want]
    if wrong:
        raise CardReplyRejected(f"reply for {charge.id} differs in {', '.join(wrong)}")
    if charge.status in state.CHARGE_FINAL:
        return _card_reply_after_the_end(charge, reply.transaction_id)
    if not throttles.claim("card-reply-check", charge.id, CARD_REPLY_CHECK_INTERVAL):
        # Another reply (or this one, replayed) had it asked moments ago, or the shared cache
        # is out of reach: the status checks on the charge's schedule decide.
        logger.info("card reply for %s: its provider was asked less than %ss ago", charge.id,
                    CARD_REPLY_CHECK_INTERVAL)  # fmt: skip
        return charge
    return charge_refresh(charge_id=charge.id)


def _card_reply_after_the_end(charge: Charge, transaction_id: str) -> Charge:
    """A verified reply for a card charge that has ended: a page completed after we abandoned
    the charge (the reconciliation check asks now), or an older attempt's page, left open in
    another tab, completed after the newer attempt was canceled, declined, failed or paid.
    Either way the provider is asked now, and every payment it confirms that does not stand is
    given back in full (a late payment, docs/architecture/money.md): nothing is kept that was
    not accepted. Only the reply of the payment that stands (the same reply brought again, or
    its copy sent server to server) asks nothing."""
    if charge.reconcile_next_at is not None:
        return charge_reconcile(charge_id=charge.id)
    if transaction_id and transaction_id == charge.provider_reference:
        return charge
    outcome = _ask_status(charge, unavailable_pending=True)
    return charge_apply_outcome(charge_id=charge.id, outcome=outcome)


def charge_refresh(*, charge_id: str, unavailable_pending: bool = False) -> Charge:
    """Ask the provider where a pending charge stands and apply the answer (the status check).
    With unavailable_pending (the workers' checks), a provider no longer connected is one more
    answer that says nothing, as an unreachable one is: the charge is asked again later and, once
    its time is up, fails by our clock and is reconciled (docs/architecture/money.md); otherwise
    (staff asking now) ProviderUnavailable is raised.

    Safe to run twice at once: the outcome is applied under a row lock, and a final status never
    changes."""
    charge = Charge.objects.get(pk=charge_id)
    if charge.status in state.CHARGE_FINAL:
        return charge
    outcome = _ask_status(charge, unavailable_pending=unavailable_pending)
    return charge_apply_outcome(charge_id=charge_id, outcome=outcome, counter="check_count")


def _ask_status(charge: Charge, *, unavailable_pending: bool = False) -> ProviderOutcome:
    """The provider's status check. An answer that says nothing (unreachable, 5xx) is `pending`,
    never a failure. A provider no longer connected raises ProviderUnavailable, unless
    unavailable_pending."""
    return provider_ask(
        lambda: provider_for(charge).check_status(_query(charge)),
        action="status check",
        about=charge.id,
        unavailable_pending=unavailable_pending,
    )


@transaction.atomic
def charge_fail_unsent(*, charge_id: str) -> Charge:
    """A mobile money charge whose prompt was not handed to its operator before its deadline
    (counted from creation) fails `timeout` without ever being sent. Checked under
    the row lock; a charge that was sent, is final or still has time is left as it is."""
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    if (
        charge.status != ChargeStatus.PENDING
        or charge.payment_method != PaymentMethod.MOBILE_MONEY
        or charge.provider_requested_at is not None
    ):
        return charge
    outcome = _deadline_outcome(charge)
    if outcome is None:
        return charge
    return charge_apply_outcome(
        charge_id=charge_id,
        outcome=replace(outcome, raw={"unsent": "the prompt was not sent before its deadline"}),
    )


# --- What the workers run -------------------------------------------------------------------

UNSENT_GRACE = 30  # a mobile money charge not handed to its operator after this is re-sent


def charge_request_payment_and_check(*, charge_id: str) -> None:
    """Send a mobile money charge's prompt (charge_request_payment), then enqueue its first
    status check for when it is due."""
    charge_request_payment(charge_id=charge_id)
    charge = Charge.objects.filter(pk=charge_id).values("next_check_at", "status").first()
    if charge and charge["status"] == ChargeStatus.PENDING and charge["next_check_at"]:
        queues.charge_refresh_enqueue(charge_id=charge_id, eta=charge["next_check_at"])


def charges_poll_due() -> int:
    """Enqueue a status check for every pending charge whose next check is due, and re-send
    mobile money requests a lost task never delivered — unless their deadline (counted from
    creation while unsent) has passed: those fail `timeout` here, never sent. Returns how many
    checks were enqueued."""
    now = timezone.now()
    due = queues.due_claim(Charge.objects.filter(status=ChargeStatus.PENDING), now=now)
    for charge_id in due:
        queues.charge_refresh_enqueue(charge_id=charge_id)
    _charges_unsent_sweep(now=now)
    return len(due)


def _charges_unsent_sweep(*, now: datetime) -> None:
    """Mobile money charges whose prompt no task has sent (the broker was down, a worker died):
    sent again, or failed `timeout` once too late to send."""
    too_late = now - timedelta(seconds=settings.MOBILE_MONEY_PROMPT_TIMEOUT)
    unsent = (
        Charge.objects.filter(
            status=ChargeStatus.PENDING,
            payment_method=PaymentMethod.MOBILE_MONEY,
            provider_requested_at__isnull=True,
            created_at__lte=now - timedelta(seconds=UNSENT_GRACE),
        )
        .order_by("created_at")
        .only("id", "livemode", "network", "created_at")[: queues.POLL_BATCH]
    )
    for charge in unsent:
        if charge.created_at <= too_late:
            charge_fail_unsent(charge_id=charge.id)
        else:
            queues.charge_request_payment_enqueue(charge=charge)


def charges_reconcile_due() -> int:
    """Enqueue the reconciliation check of every charge whose next one is due."""
    due = queues.due_claim(
        Charge.objects.all(), now=timezone.now(), field="reconcile_next_at", push=300
    )
    for charge_id in due:
        queues.charge_reconcile_enqueue(charge_id=charge_id)
    return len(due)


# --- Reconciliation and late payments ---------------------------------------------
#
# A charge we failed by our own clock after it reached its provider may still be paid: a mobile
# money prompt (`timeout`) approved late, a card page (`abandoned`) completed late in a tab left
# open, or our status checks may not have reached the provider. Such a charge is asked about again for RECONCILIATION_WINDOW, with the
# growing waits of RECONCILIATION_BACKOFF (charge_reconcile, swept by charges_reconcile_due).
# If the operator then reports the payment as made, the charge keeps its status and the money is
# given back automatically: a full refund with reason `late_payment`, through the one refund path.
# The same is done with any success that cannot be accepted (checkout: a session already complete
# or expired), via charge_late_payment.


# What our clock fails a charge with, by payment method.
CLOCK_FAILURES = {PaymentMethod.MOBILE_MONEY: "timeout", PaymentMethod.CARD: "abandoned"}


def _reconciles(charge: Charge) -> bool:
    """Whether a final charge is asked about again: failed by our clock after it reached its
    provider (a prompt unanswered in time, a card page not completed in time): the customer may
    still pay, or may have paid where our checks did not reach."""
    return (
        charge.status == ChargeStatus.FAILED
        and charge.failure_code == CLOCK_FAILURES.get(charge.payment_method)
        and charge.provider_requested_at is not None
    )


def _next_reconcile_at(charge: Charge, now: datetime) -> datetime | None:
    """When to ask again (never after the window), or None once the window is over."""
    if charge.reconcile_until is None or now >= charge.reconcile_until:
        return None
    schedule = settings.RECONCILIATION_BACKOFF or [3600]
    wait = schedule[min(charge.reconcile_count, len(schedule) - 1)]
    return min(now + timedelta(seconds=wait), charge.reconcile_until)


def charge_reconcile(*, charge_id: str) -> Charge:
    """Ask the operator again where a charge failed by our clock stands, and apply the answer
    (charge_apply_outcome: a success becomes a late payment; a pending or unreachable answer
    asks again later within the window; a failure or decline ends the reconciliation)."""
    charge = Charge.objects.get(pk=charge_id)
    if charge.reconcile_next_at is None:
        return charge
    # Its adapter removed: still nothing known, ask again.
    outcome = _ask_status(charge, unavailable_pending=True)
    return charge_apply_outcome(charge_id=charge_id, outcome=outcome, counter="reconcile_count")


@transaction.atomic
def charge_late_payment(*, charge_id: str, answer: dict) -> Refund | None:
    """A payment the operator reports as made that cannot be accepted: on a charge already failed
    or declined, or (checkout) on a session already complete or expired. The charge's status does
    not change; the late payment is recorded for staff (late_payment_at, the operator's answer)
    and the full amount is refunded with reason `late_payment`, once per charge (row lock), and
    sent to the operator by a task once this commits."""
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    if charge.late_payment_at is not None:
        return None
    now = timezone.now()
    charge.late_payment_at = now
    charge.reconcile_next_at = None
    fields = answer_record(
        charge, raw={"late_payment": answer or {"status": ChargeStatus.SUCCEEDED}}, at=now
    )
    charge.save(update_fields=["late_payment_at", "reconcile_next_at", *fields])
    if charge.status != ChargeStatus.SUCCEEDED:  # a succeeded charge's money is counted already
        ledger_record(type=LedgerType.LATE_PAYMENT, source=charge)
    logger.warning("late payment on %s charge %s: refunding it in full", charge.status, charge.id)
    return refunds.refund_create_for_late_payment(charge_id=charge.id)


def _extra_payment_given_back(charge: Charge, payment: PaymentTaken) -> Refund | None:
    """Another payment of a final charge, confirmed by its provider: recorded for staff and
    given back in full, as a late payment that is not counted in the charge's amount_refunded
    (refunds.refund_create_for_other_payment). At most once per payment: the charge's row lock
    (held by the caller) orders the paths that find it, and the extra payment's uniqueness
    (charge, reference) stands behind it. None when it was given back already."""
    now = timezone.now()
    extra, _ = ExtraPayment.objects.get_or_create(
        charge=charge, reference=payment.reference, defaults={"created_at": now}
    )
    answer = {"at": now.isoformat(), **(payment.raw or {"status": ChargeStatus.SUCCEEDED})}
    extra.answers = [*extra.answers, answer][-RAW_HISTORY:]
    extra.updated_at = now
    if extra.status == ExtraPaymentStatus.CONFIRMED:
        extra.save(update_fields=["answers", "updated_at"])
        return None
    refund = refunds.refund_create_for_other_payment(
        charge_id=charge.id, payment_reference=payment.reference
    )
    extra.status, extra.refund, extra.next_check_at = ExtraPaymentStatus.CONFIRMED, refund, None
    extra.save(update_fields=["status", "refund", "next_check_at", "answers", "updated_at"])
    logger.warning(
        "another payment %s of %s charge %s: giving it back in full",
        payment.reference,
        charge.status,
        charge.id,
    )
    return refund


def charge_payment_confirmed(*, charge_id: str, reference: str, answer: dict) -> Charge:
    """The provider confirms a payment of this charge under `reference` (its transaction id),
    wherever that was learnt (a statement line, a status answer): applied as the provider's
    success through charge_apply_outcome. On a pending charge it settles it; on a final charge
    it is kept only if it is the payment that stands, and given back otherwise (a late payment,
    at most once per reference)."""
    return charge_apply_outcome(
        charge_id=charge_id,
        outcome=ProviderOutcome(
            status=ChargeStatus.SUCCEEDED, provider_reference=reference, raw=answer
        ),
    )


@transaction.atomic
def charge_extra_payment_reported(*, charge_id: str, reference: str, answer: dict) -> bool:
    """An operator reports our succeeded charge paid under another transaction id than the one
    recorded (a callback): recorded for staff, once per reference, to be checked with the
    operator (charge_extra_payment_check). True when it waits for that check (new, or reported
    again while unconfirmed); False for the payment that stands, one given back already, or a
    charge that did not succeed or whose own transaction id is unknown (nothing to compare)."""
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    if (
        charge.status != ChargeStatus.SUCCEEDED
        or not reference
        or not charge.provider_reference
        or reference == charge.provider_reference
    ):
        return False
    now = timezone.now()
    extra, created = ExtraPayment.objects.get_or_create(
        charge=charge, reference=reference, defaults={"created_at": now}
    )
    if extra.status == ExtraPaymentStatus.CONFIRMED:
        return False
    extra.answers = [*extra.answers, {"at": now.isoformat(), "reported": answer}][-RAW_HISTORY:]
    extra.updated_at = now
    fields = ["answers", "updated_at"]
    if created:
        # The check this report queues may hear nothing: the sweep asks again after a while.
        extra.next_check_at = _extra_next_check_at(extra, now)
        fields.append("next_check_at")
    extra.save(update_fields=fields)
    logger.warning("charge %s reported paid again as %s: asking the operator", charge.id, reference)
    return True


def charge_extra_payment_check(*, charge_id: str, reference: str) -> ExtraPayment | None:
    """Ask the operator about a second payment reported for a succeeded charge, by its
    transaction id where the operator's API allows (the adapter's check_status with
    payment_reference), and apply the answer. Confirmed (a success naming that transaction):
    given back through charge_apply_outcome. A success naming another transaction, or a failure:
    not confirmed, recorded for staff. An answer that says nothing leaves it reported, asked
    again by the sweep (charges_extra_payments_check_due) with growing waits within
    RECONCILIATION_WINDOW, when the operator reports it again, or when staff ask. Never a second
    prompt."""
    extra = (
        ExtraPayment.objects.select_related("charge")
        .filter(charge_id=charge_id, reference=reference)
        .first()
    )
    if extra is None or extra.status == ExtraPaymentStatus.CONFIRMED:
        return extra
    charge = extra.charge
    outcome = provider_ask(
        lambda: provider_for(charge).check_status(
            replace(_query(charge), payment_reference=reference)
        ),
        action="status check",
        about=f"{charge.id} ({reference})",
        unavailable_pending=True,
    )
    if outcome.status == ChargeStatus.SUCCEEDED and outcome.provider_reference == reference:
        charge_apply_outcome(charge_id=charge.id, outcome=outcome)
    else:
        _extra_payment_unconfirmed(extra_id=extra.pk, outcome=outcome)
    extra.refresh_from_db()
    return extra


@transaction.atomic
def _extra_payment_unconfirmed(*, extra_id: int, outcome: ProviderOutcome) -> None:
    """Keep the operator's answer on a reported payment it did not confirm: a definite answer
    (a failure, or a success of another transaction) makes it unconfirmed, asked no more; one
    that says nothing (pending, unreachable) leaves it reported, asked again after the next
    wait of RECONCILIATION_BACKOFF (counted under the row lock) while the window lasts."""
    extra = ExtraPayment.objects.select_for_update().get(pk=extra_id)
    if extra.status == ExtraPaymentStatus.CONFIRMED:
        return
    now = timezone.now()
    answer = {"at": now.isoformat(), "status": outcome.status, **outcome.raw}
    if outcome.provider_reference:
        answer["transaction"] = outcome.provider_reference
    extra.answers = [*extra.answers, answer][-RAW_HISTORY:]
    extra.check_count += 1
    if outcome.status != ChargeStatus.PENDING:
        extra.status = ExtraPaymentStatus.UNCONFIRMED
    reported = extra.status == ExtraPaymentStatus.REPORTED
    extra.next_check_at = _extra_next_check_at(extra, now) if reported else None
    extra.updated_at = now
    extra.save(update_fields=["answers", "status", "check_count", "next_check_at", "updated_at"])


def _extra_next_check_at(extra: ExtraPayment, now: datetime) -> datetime | None:
    """When to ask again about a reported payment: the next wait of RECONCILIATION_BACKOFF,
    never after RECONCILIATION_WINDOW from when it was reported (then None: staff ask)."""
    until = extra.created_at + timedelta(seconds=settings.RECONCILIATION_WINDOW)
    if now >= until:
        return None
    schedule = settings.RECONCILIATION_BACKOFF or [3600]
    wait = schedule[min(extra.check_count, len(schedule) - 1)]
    return min(now + timedelta(seconds=wait), until)


def charges_extra_payments_check_due() -> int:
    """Enqueue the check of every payment reported for a succeeded charge whose next check is
    due (one the operator's answers have neither confirmed nor denied: a timeout, a 5xx),
    claimed under a row lock that skips those another sweep holds and pushed out, so that two
    sweeps at once never enqueue the same one. Those reported longer than RECONCILIATION_WINDOW
    ago are asked no more: they stay reported for staff. Returns how many checks were
    enqueued."""
    now = timezone.now()
    since = now - timedelta(seconds=settings.RECONCILIATION_WINDOW)
    reported = ExtraPayment.objects.filter(status=ExtraPaymentStatus.REPORTED)
    over = reported.filter(next_check_at__isnull=False, created_at__lt=since)
    if count := over.update(next_check_at=None):
        logger.warning("%s other payments unconfirmed at the window's end: left to staff", count)
    # The last check falls on the window's end (_extra_next_check_at): still taken.
    due = queues.due_claim(reported.filter(created_at__gte=since), now=now)
    for charge_id, reference in ExtraPayment.objects.filter(pk__in=due).values_list(
        "charge_id", "reference"
    ):
        queues.charge_extra_payment_check_enqueue(charge_id=charge_id, reference=reference)
    return len(due)


def _answer_after_the_end(
    kind: movements.Kind, charge: Charge, outcome: ProviderOutcome, fields: list[str], now
) -> Charge:
    """An answer on a final charge: its status never changes. A success reported on a charge
    that did not succeed is a late payment (refunded); a reconciliation check's pending or
    unreachable answer asks again later, the operator's failure ends it; every other payment
    the provider confirms is given back (_payments_taken)."""
    late = (
        outcome.status == ChargeStatus.SUCCEEDED
        and charge.status != ChargeStatus.SUCCEEDED
        and charge.late_payment_at is None
    )
    if late and outcome.provider_reference not in ("", charge.provider_reference):
        # The transaction that took the money, which its refund must name: not the one of
        # the answer that ended the charge (a card attempt canceled in another tab).
        charge.provider_reference = outcome.provider_reference
        fields = [*dict.fromkeys([*fields, "provider_reference"])]
    if charge.reconcile_next_at is not None and not late:
        charge.reconcile_next_at = (
            _next_reconcile_at(charge, now) if outcome.status == ChargeStatus.PENDING else None
        )
        fields.append("reconcile_next_at")
    charge.save(update_fields=fields)
    if late:
        charge_late_payment(charge_id=charge.id, answer=outcome.raw)
        charge.refresh_from_db()
    taken = outcome.other_payments
    if outcome.status == ChargeStatus.SUCCEEDED and outcome.provider_reference:
        taken = (PaymentTaken(outcome.provider_reference, outcome.raw), *taken)
    _payments_taken(charge, taken)
    return charge


def _on_final(charge: Charge, outcome: ProviderOutcome, now: datetime) -> list[str]:
    """A charge's own changes as it becomes final: the payment that stands, no next action, and
    a charge failed by our clock is reconciled (its window opens)."""
    fields = ["next_action"]
    charge.next_action = None
    if outcome.status == ChargeStatus.SUCCEEDED and outcome.provider_reference:
        # The payment that made the charge succeed is the one that stands (not that of an
        # earlier answer, such as another card attempt under review): every other payment the
        # provider confirms for the charge is given back.
        charge.provider_reference = outcome.provider_reference
        fields.append("provider_reference")
    if _reconciles(charge):
        charge.reconcile_until = now + timedelta(seconds=settings.RECONCILIATION_WINDOW)
        charge.reconcile_next_at = _next_reconcile_at(charge, now)
        fields += ["reconcile_until", "reconcile_next_at"]
    return fields


def _after_event(charge: Charge, outcome: ProviderOutcome) -> Charge:
    if charge.checkout_session_id:
        charge.refresh_from_db()  # a success its session refused is being refunded (checkout/)
    if outcome.other_payments:
        _payments_taken(charge, outcome.other_payments)
        charge.refresh_from_db()
    return charge


CHARGE = movements.Kind(
    name="charge",
    model=Charge,
    transitions=state.CHARGE_TRANSITIONS,
    final=state.CHARGE_FINAL,
    signal=events.charge_changed,
    represent=charge_repr,
    backoff=_backoff,
    ledger={ChargeStatus.SUCCEEDED: LedgerType.CHARGE},
    deadline=_deadline_outcome,
    # Never checked later than its deadline, so that a timeout is applied on time.
    checks_until=_deadline_at,
    after_the_end=_answer_after_the_end,
    on_final=_on_final,
    after_event=_after_event,
)


def charge_apply_outcome(
    *, charge_id: str, outcome: ProviderOutcome, counter: str | None = None
) -> Charge:
    """The one place a charge's status changes (services.movements): locked, checked, evented,
    in one transaction. A pending answer once the charge's time is up becomes its deadline
    failure (decided under the lock, from the charge as it stands). A final status never
    changes: a success reported afterwards on a charge that did not succeed is a late payment
    (refunded)."""
    return movements.movement_apply_outcome(CHARGE, pk=charge_id, outcome=outcome, counter=counter)


def _payments_taken(charge: Charge, taken: tuple[PaymentTaken, ...]) -> None:
    """Payments the provider confirms for a final charge, under its row lock (taken by the
    caller's transaction). The one that stands is kept: the payment that made the charge
    succeed, or the late payment of a charge that did not (given back already). While nothing
    stands on a charge that did not succeed, the first becomes its late payment; every other
    one is given back in full, once (_extra_payment_given_back)."""
    for payment in taken:
        if not payment.reference or payment.reference == charge.provider_reference:
            continue
        if charge.status != ChargeStatus.SUCCEEDED and charge.late_payment_at is None:
            Charge.objects.filter(pk=charge.id).update(provider_reference=payment.reference)
            charge_late_payment(charge_id=charge.id, answer=payment.raw)
            charge.refresh_from_db()
        elif charge.provider_reference:
            # A succeeded charge whose own payment the provider never named cannot tell another
            # payment from its own: nothing is given back on a guess.
            _extra_payment_given_back(charge, payment)
