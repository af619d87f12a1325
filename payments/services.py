"""The only code that changes merchant, key and money state.

Keyword-only arguments, type hints, one transaction per operation.
"""

import logging
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from payments import ids, money, state
from payments.errors import (
    AmountExceedsRefundable,
    CardRailDisabled,
    CardReplyRejected,
    ChargeNotRefundable,
    InvalidRequest,
    LiveModeNotApproved,
    ProviderUnavailable,
)
from payments.links import public_url
from payments.models import (
    MERCHANT_REFUND_REASONS,
    ApiKey,
    Charge,
    ChargeStatus,
    Merchant,
    Mode,
    PaymentMethod,
    Refund,
    RefundReason,
    RefundStatus,
    hash_api_key,
)
from payments.providers import registry
from payments.providers.base import (
    STAFF_REASON,
    CardPayment,
    InvalidSignature,
    MobileMoneyPayment,
    PaymentQuery,
    ProviderError,
    ProviderOutcome,
    RefundQuery,
    RefundRequest,
)
from payments.providers.secure_acceptance import attempt_issued
from payments.representations import charge_repr, refund_repr

logger = logging.getLogger("payments.services")


@dataclass(frozen=True)
class IssuedKey:
    api_key: ApiKey
    plaintext: str  # shown once, never stored


@transaction.atomic
def api_key_create(*, merchant: Merchant, mode: str) -> IssuedKey:
    if mode not in Mode.values:
        raise ValueError(f"mode must be one of {Mode.values}")
    plaintext = f"sk_{mode}_{ids.random_token(32)}"
    key = ApiKey.objects.create(
        merchant=merchant,
        mode=mode,
        prefix=f"{plaintext[:12]}…{plaintext[-4:]}",
        key_hash=hash_api_key(plaintext),
    )
    return IssuedKey(api_key=key, plaintext=plaintext)


@transaction.atomic
def api_key_revoke(*, api_key: ApiKey) -> ApiKey:
    if api_key.revoked_at is None:
        api_key.revoked_at = timezone.now()
        api_key.save(update_fields=["revoked_at"])
    return api_key


@dataclass(frozen=True)
class NewMerchant:
    merchant: Merchant
    test_key: IssuedKey
    live_key: IssuedKey
    test_webhook_secret: str
    live_webhook_secret: str


@transaction.atomic
def merchant_create(
    *,
    name: str,
    webhook_url: str = "",
    live_approved: bool = False,
    card_rail_enabled: bool = True,
) -> NewMerchant:
    from webhooks.services import endpoints_create

    merchant = Merchant.objects.create(
        name=name, live_approved=live_approved, card_rail_enabled=card_rail_enabled
    )
    test_endpoint, live_endpoint = endpoints_create(merchant=merchant, url=webhook_url)
    return NewMerchant(
        merchant=merchant,
        test_key=api_key_create(merchant=merchant, mode=Mode.TEST),
        live_key=api_key_create(merchant=merchant, mode=Mode.LIVE),
        test_webhook_secret=test_endpoint.secret,
        live_webhook_secret=live_endpoint.secret,
    )


# --- Charges ----------------------------------------------------------------------------------

RAW_HISTORY = 20  # provider answers kept per charge, for staff


def card_receipt_url() -> str:
    return public_url("card-receipt")


def card_notify_url() -> str:
    return public_url("card-notify")


def _check_access(*, merchant: Merchant, livemode: bool, payment_method: str) -> None:
    if livemode and not merchant.live_approved:
        raise LiveModeNotApproved()
    if payment_method == PaymentMethod.CARD and not merchant.card_rail_enabled:
        raise CardRailDisabled()


@transaction.atomic
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
    """Create a pending charge. Mobile money: the prompt is sent by a task once this commits.
    Card: the signed form for the hosted page is made now and kept as next_action."""
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
        charge.save(force_insert=True)
    else:
        provider = registry.mobile_money(livemode=livemode, network=network)
        charge.phone = phone
        charge.network = network
        charge.provider = provider.name
        charge.save(force_insert=True)
        from payments import tasks

        # robust: with the broker down the charge still stands (201); the unsent-charge sweep
        # of charges_poll_due sends its prompt once the broker is back.
        transaction.on_commit(lambda: tasks.enqueue_payment_request(charge), robust=True)
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


def _backoff(check_count: int) -> float:
    return POLL_BACKOFF[min(check_count, len(POLL_BACKOFF) - 1)]


def charge_request_payment(*, charge_id: str) -> None:
    """Hand a mobile money charge to its operator (sends the prompt), at most once, and only
    before its deadline (counted from creation while unsent): the claim itself
    requires it, so a prompt that comes too late is never sent and the charge fails `timeout`."""
    now = timezone.now()
    claimed = Charge.objects.filter(
        pk=charge_id,
        status=ChargeStatus.PENDING,
        provider_requested_at__isnull=True,
        created_at__gt=now - timedelta(seconds=settings.MOBILE_MONEY_PROMPT_TIMEOUT),
    ).update(provider_requested_at=now)
    if not claimed:
        charge_fail_unsent(charge_id=charge_id)
        return
    charge = Charge.objects.get(pk=charge_id)
    try:
        provider = registry.mobile_money(livemode=charge.livemode, network=charge.network)
        outcome = provider.request_payment(
            MobileMoneyPayment(
                charge_id=charge.id,
                amount=charge.amount,
                currency=charge.currency,
                phone=charge.phone,
                network=charge.network,
                description=charge.description,
                callback_url=f"{settings.PUBLIC_BASE_URL}/providers/{charge.network.lower()}/callback",
            )
        )
    except (ProviderError, ProviderUnavailable) as exc:
        # Unknown whether the operator got it: keep it pending and ask for its status later.
        logger.warning("payment request for %s failed: %s", charge.id, exc)
        outcome = ProviderOutcome(status=ChargeStatus.PENDING, raw={"error": str(exc)})
    charge_apply_outcome(charge_id=charge.id, outcome=outcome)


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


def _provider_for(charge: Charge):
    if charge.payment_method == PaymentMethod.CARD:
        return registry.card(livemode=charge.livemode)
    return registry.mobile_money(livemode=charge.livemode, network=charge.network)


def _refunds_partially(charge: Charge) -> bool:
    """Whether the charge's provider takes partial refunds (Airtel refunds whole payments only).
    A provider no longer configured is asked nothing here: sending the refund will tell."""
    try:
        return getattr(_provider_for(charge), "partial_refunds", True)
    except ProviderUnavailable:
        return True


def _seconds_left(charge: Charge, now: datetime | None = None) -> float:
    """Seconds until a pending charge's time is up: negative once it is.
    A mobile money deadline runs from the moment the prompt was handed to the operator; while
    the prompt is unsent, from creation."""
    if charge.payment_method == PaymentMethod.CARD:
        limit, start = settings.CARD_PAYMENT_TIMEOUT, charge.created_at
    else:
        limit = settings.MOBILE_MONEY_PROMPT_TIMEOUT
        start = charge.provider_requested_at or charge.created_at
    return limit - ((now or timezone.now()) - start).total_seconds()


def _deadline_outcome(charge: Charge, now: datetime | None = None) -> ProviderOutcome | None:
    """The failure a pending charge gets once its time is up, else None."""
    if _seconds_left(charge, now) > 0:
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


def charge_card_return(*, fields: dict[str, str]) -> Charge:
    """The card provider's reply, posted back through the customer's browser to our receipt page.

    Only a hint: once it verifies and matches the charge, the status check decides. Raises
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
    return charge_refresh(charge_id=charge.id)


def charge_refresh(*, charge_id: str) -> Charge:
    """Ask the provider where a pending charge stands and apply the answer (the status check).

    Safe to run twice at once: the outcome is applied under a row lock, and a final status never
    changes."""
    charge = Charge.objects.get(pk=charge_id)
    if charge.status in state.CHARGE_FINAL:
        return charge
    Charge.objects.filter(pk=charge_id).update(check_count=charge.check_count + 1)
    return charge_apply_outcome(charge_id=charge_id, outcome=_ask_status(charge))


def _ask_status(charge: Charge) -> ProviderOutcome:
    """The provider's status check. An answer that says nothing (unreachable, 5xx) is `pending`,
    never a failure. A provider no longer connected raises ProviderUnavailable."""
    try:
        return _provider_for(charge).check_status(_query(charge))
    except ProviderError as exc:
        logger.warning("status check for %s failed: %s", charge.id, exc)
        return ProviderOutcome(status=ChargeStatus.PENDING, raw={"error": str(exc)})


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


# --- Reconciliation and late payments ---------------------------------------------
#
# A mobile money charge we failed by our own clock (`timeout`) after its prompt was handed to the
# operator may still be paid: the customer can approve late, or our status checks may not have
# reached the operator. Such a charge is asked about again for RECONCILIATION_WINDOW, with the
# growing waits of RECONCILIATION_BACKOFF (charge_reconcile, swept by tasks.charges_reconcile_due).
# If the operator then reports the payment as made, the charge keeps its status and the money is
# given back automatically: a full refund with reason `late_payment`, through the one refund path.
# The same is done with any success that cannot be accepted (checkout: a session already complete
# or expired), via charge_late_payment.


def _reconciles(charge: Charge) -> bool:
    """Whether a final charge is asked about again: failed by the clock after being sent."""
    return (
        charge.status == ChargeStatus.FAILED
        and charge.failure_code == "timeout"
        and charge.payment_method == PaymentMethod.MOBILE_MONEY
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
    Charge.objects.filter(pk=charge_id).update(reconcile_count=F("reconcile_count") + 1)
    try:
        outcome = _ask_status(charge)
    except ProviderUnavailable as exc:  # its adapter removed: still nothing known, ask again
        outcome = ProviderOutcome(status=ChargeStatus.PENDING, raw={"error": exc.message})
    return charge_apply_outcome(charge_id=charge_id, outcome=outcome)


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
    charge.provider_raw = [
        *charge.provider_raw,
        {"at": now.isoformat(), "late_payment": answer or {"status": ChargeStatus.SUCCEEDED}},
    ][-RAW_HISTORY:]
    charge.save(update_fields=["late_payment_at", "reconcile_next_at", "provider_raw"])
    logger.warning("late payment on %s charge %s: refunding it in full", charge.status, charge.id)
    refund = _refund_reserve(
        charge_id=charge.id,
        amount=None,
        reason=RefundReason.LATE_PAYMENT,
        metadata={},
        late_payment=True,
    )
    if refund is not None:
        from payments import tasks

        # robust: with the broker down the refund still stands; the refund poller sends it.
        transaction.on_commit(lambda: tasks.refund_send.delay(refund.id), robust=True)
    return refund


@transaction.atomic
def charge_apply_outcome(*, charge_id: str, outcome: ProviderOutcome) -> Charge:
    """The one place a charge's status changes: locked, checked, evented, in one transaction.

    A pending answer once the charge's time is up becomes its deadline failure (decided here,
    under the lock, from the charge as it stands). A final status never changes: a success
    reported afterwards on a charge that did not succeed is a late payment (refunded)."""
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    now = timezone.now()
    fields = ["provider_raw"]
    if outcome.raw:
        charge.provider_raw = [*charge.provider_raw, {"at": now.isoformat(), **outcome.raw}][
            -RAW_HISTORY:
        ]
    if outcome.provider_reference and not charge.provider_reference:
        charge.provider_reference = outcome.provider_reference
        fields.append("provider_reference")
    if charge.status in state.CHARGE_FINAL:
        late = outcome.status == ChargeStatus.SUCCEEDED and charge.status != ChargeStatus.SUCCEEDED
        if charge.reconcile_next_at is not None and not late:
            # Pending or unreachable: ask again later; the operator's failure ends it.
            charge.reconcile_next_at = (
                _next_reconcile_at(charge, now) if outcome.status == ChargeStatus.PENDING else None
            )
            fields.append("reconcile_next_at")
        charge.save(update_fields=fields)
        if late:
            charge_late_payment(charge_id=charge.id, answer=outcome.raw)
            charge.refresh_from_db()
        return charge
    if outcome.status == ChargeStatus.PENDING:
        outcome = _deadline_outcome(charge, now) or outcome
    if outcome.status == ChargeStatus.PENDING:
        wait = (
            outcome.check_after if outcome.check_after is not None else _backoff(charge.check_count)
        )
        # Never check later than the deadline, so that a timeout is applied on time.
        wait = max(0.0, min(wait, _seconds_left(charge, now)))
        charge.next_check_at = now + timedelta(seconds=wait)
        charge.save(update_fields=[*fields, "next_check_at"])
        return charge
    state.check_charge_transition(charge.status, outcome.status)
    charge.status = outcome.status
    charge.failure_code = outcome.failure_code if outcome.status != ChargeStatus.SUCCEEDED else ""
    charge.failure_message = (
        outcome.failure_message if outcome.status != ChargeStatus.SUCCEEDED else ""
    )
    charge.next_check_at = None
    charge.next_action = None
    charge.finalized_at = now
    charge.updated_at = now
    if _reconciles(charge):
        charge.reconcile_until = now + timedelta(seconds=settings.RECONCILIATION_WINDOW)
        charge.reconcile_next_at = _next_reconcile_at(charge, now)
        fields += ["reconcile_until", "reconcile_next_at"]
    charge.save(
        update_fields=[
            *fields,
            "status",
            "failure_code",
            "failure_message",
            "next_check_at",
            "next_action",
            "finalized_at",
            "updated_at",
        ]
    )
    from webhooks.services import event_record

    event_record(
        merchant=charge.merchant,
        livemode=charge.livemode,
        type=f"charge.{charge.status}",
        data=charge_repr(charge),
        destination_url=charge.callback_url,
    )
    if charge.checkout_session_id:
        from checkout.services import session_charge_finalized

        session_charge_finalized(charge=charge)
        charge.refresh_from_db()  # a success the session refused is being refunded
    return charge


# --- Refunds ----------------------------------------------------------------------------------
#
# A refund is made in three steps, so that neither a lock nor a transaction is held while the
# provider is asked, and no refund is ever paid without a record of it:
#   1. _refund_reserve: under the charge's row lock, check the rules and write the refund as
#      `pending`, adding its amount to charge.amount_refunded. Concurrent requests queue on the
#      lock, each sees what the others reserved, so the refunds never exceed the charge.
#   2. ask the provider (outside any transaction; the reservation is committed first). In live
#      mode a task does it once the reservation is committed, so the API answers `pending`;
#   3. refund_apply_outcome: settle the refund; a failed refund frees its amount again.
# If the request dies between 1 and 3, the refund stays pending and the poller asks the provider
# about it after REFUND_CHECK_GRACE; a provider with no record of it answers `failed`.

REFUND_CHECK_GRACE = 300  # longer than any provider call may take
REFUND_POLL_INTERVAL = 30  # between status checks of a pending refund, unless the provider says


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
    False) keep every rule: succeeded charges only, never more than what remains refundable."""
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    remaining = charge.amount - charge.amount_refunded
    if late_payment:
        if remaining <= 0:
            return None
        amount, reason = remaining, RefundReason.LATE_PAYMENT
    elif charge.status != ChargeStatus.SUCCEEDED:
        raise ChargeNotRefundable(
            f"Only succeeded charges can be refunded; charge {charge.id} is {charge.status}."
        )
    if remaining <= 0:
        raise ChargeNotRefundable(f"Charge {charge.id} has already been refunded in full.")
    if amount is None:
        amount = remaining
    if type(amount) is not int or amount < 1:
        raise InvalidRequest(
            "amount must be a positive integer in the smallest currency unit.",
            code="amount_invalid",
            param="amount",
        )
    if charge.payment_method == PaymentMethod.MOBILE_MONEY and not money.is_whole(amount):
        raise InvalidRequest(
            "Mobile money takes whole units only: a refund of a mobile money charge must be a "
            "multiple of 100 (e.g. 2500 = 25.00).",
            code="amount_invalid",
            param="amount",
        )
    if amount > remaining:
        raise AmountExceedsRefundable(
            f"amount ({amount}) is greater than what remains refundable on charge {charge.id} "
            f"({remaining}).",
            param="amount",
        )
    if amount != charge.amount and not _refunds_partially(charge):
        raise InvalidRequest(
            f"The provider of charge {charge.id} refunds whole payments only: omit amount to "
            f"refund it in full ({charge.amount}).",
            code="partial_refund_not_supported",
            param="amount",
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
            f"reason must be one of {', '.join(MERCHANT_REFUND_REASONS)}.", param="reason"
        )
    _provider_for(charge)  # provider_unavailable before anything is reserved
    refund = _refund_reserve(
        charge_id=charge.pk, amount=amount, reason=reason, metadata=metadata or {}
    )
    if refund.livemode:
        # Real money: the provider is asked only once this reservation is committed (by a task),
        # so a request that is rolled back (an idempotent retry, a crash) can never have paid.
        from payments import tasks

        # robust: with the broker down the refund still stands; the refund poller sends it.
        transaction.on_commit(lambda: tasks.refund_send.delay(refund.id), robust=True)
        return refund
    return refund_send(refund_id=refund.id)


def refund_send(*, refund_id: str) -> Refund:
    """Hand a reserved refund to its provider, at most once, and apply the answer."""
    claimed = Refund.objects.filter(
        pk=refund_id, status=RefundStatus.PENDING, provider_requested_at__isnull=True
    ).update(provider_requested_at=timezone.now())
    refund = Refund.objects.select_related("charge").get(pk=refund_id)
    if not claimed:
        return refund
    charge = refund.charge
    try:
        outcome = _provider_for(charge).refund(
            RefundRequest(
                refund_id=refund.id,
                charge_id=charge.id,
                amount=refund.amount,
                charge_amount=charge.amount,
                currency=refund.currency,
                provider_reference=charge.provider_reference,
                phone=charge.phone,
                network=charge.network,
                metadata=refund.metadata,
            )
        )
    except ProviderError as exc:
        # Unknown whether the provider took it: keep it pending and ask for its status later.
        logger.warning("refund request for %s failed: %s", refund.id, exc)
        outcome = ProviderOutcome(
            status=RefundStatus.PENDING, check_after=REFUND_POLL_INTERVAL, raw={"error": str(exc)}
        )
    return refund_apply_outcome(refund_id=refund.id, outcome=outcome)


def refund_refresh(*, refund_id: str) -> Refund:
    """Ask the provider where a pending refund stands and apply the answer (the status check)."""
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
    try:
        outcome = _provider_for(charge).check_refund(
            RefundQuery(
                refund_id=refund.id,
                charge_id=charge.id,
                amount=refund.amount,
                currency=refund.currency,
                provider_reference=refund.provider_reference,
                requested_at=refund.created_at,
                network=charge.network,
            )
        )
    except ProviderError as exc:
        logger.warning("status check for %s failed: %s", refund.id, exc)
        outcome = ProviderOutcome(status=RefundStatus.PENDING, raw={"error": str(exc)})
    return refund_apply_outcome(refund_id=refund.id, outcome=outcome)


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


@transaction.atomic
def refund_apply_outcome(*, refund_id: str, outcome: ProviderOutcome) -> Refund:
    """The one place a refund's status changes: locked, checked, evented, in one transaction.

    Locks the charge before the refund (the order _refund_reserve takes), because a failed refund
    gives its amount back to the charge."""
    charge_id = Refund.objects.values_list("charge_id", flat=True).get(pk=refund_id)
    charge = Charge.objects.select_for_update().get(pk=charge_id)
    refund = Refund.objects.select_for_update().get(pk=refund_id)
    now = timezone.now()
    fields = ["provider_raw"]
    if outcome.raw:
        refund.provider_raw = [*refund.provider_raw, {"at": now.isoformat(), **outcome.raw}][
            -RAW_HISTORY:
        ]
    if outcome.provider_reference and not refund.provider_reference:
        refund.provider_reference = outcome.provider_reference
        fields.append("provider_reference")
    if refund.status in state.REFUND_FINAL:
        if outcome.status != RefundStatus.PENDING and outcome.status != refund.status:
            logger.error(
                "refund %s is %s but the provider now answers %s",
                refund.id,
                refund.status,
                outcome.status,
            )
        refund.save(update_fields=fields)
        return refund
    if outcome.status == RefundStatus.PENDING:
        wait = outcome.check_after if outcome.check_after is not None else REFUND_POLL_INTERVAL
        refund.next_check_at = now + timedelta(seconds=wait)
        refund.save(update_fields=[*fields, "next_check_at"])
        return refund
    # A provider's "declined" refund is a failed one: refunds have no declined status.
    new_status = (
        RefundStatus.SUCCEEDED if outcome.status == RefundStatus.SUCCEEDED else RefundStatus.FAILED
    )
    state.check_refund_transition(refund.status, new_status)
    refund.status = new_status
    failed = new_status == RefundStatus.FAILED
    refund.failure_code = (outcome.failure_code or "provider_error") if failed else ""
    refund.failure_message = (
        (outcome.failure_message or "The provider could not complete the refund.") if failed else ""
    )
    refund.next_check_at = None
    refund.updated_at = now
    refund.save(
        update_fields=[
            *fields,
            "status",
            "failure_code",
            "failure_message",
            "next_check_at",
            "updated_at",
        ]
    )
    if failed:
        charge.amount_refunded -= refund.amount
        charge.updated_at = now
        charge.save(update_fields=["amount_refunded", "updated_at"])
    from webhooks.services import event_record

    event_record(
        merchant=charge.merchant,
        livemode=refund.livemode,
        type=f"refund.{refund.status}",
        data=refund_repr(refund),
        destination_url=charge.callback_url,
    )
    return refund
