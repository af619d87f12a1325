"""Checkout sessions: creation, payment attempts and the one session state machine.

A session goes open → complete (a charge of it succeeded) | expired (its time is up, or the
merchant expired it), once. Every change goes through `_session_transition`, under a row lock,
with its event written in the same transaction.
"""

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from checkout import state
from checkout.models import CheckoutSession, PromptedPhone, SessionStatus
from checkout.representations import checkout_session_repr
from core import events, money
from core.errors import (
    CardRailDisabled,
    CheckoutSessionNotOpen,
    CheckoutSessionPaymentPending,
    InvalidRequest,
    LiveModeNotApproved,
)
from core.links import with_query
from core.throttles import Rate
from payments.models import Charge, ChargeStatus, Currency, Merchant, Network, PaymentMethod
from payments.providers import registry
from payments.selectors import networks_closed
from payments.services import charges, networks

DEFAULT_LIFETIME = 24 * 3600
SESSION_ID_PLACEHOLDER = "{CHECKOUT_SESSION_ID}"


class AttemptInProgress(Exception):
    """A payment attempt of the session is still pending: one at a time."""

    def __init__(self, charge: Charge):
        self.charge = charge
        super().__init__(f"charge {charge.id} of the session is still pending")


class PhonePromptsExceeded(Exception):
    """The phone was prompted as often as PHONE_PROMPT_LIMITS allows lately: `wait` seconds
    until one more attempt is allowed."""

    def __init__(self, wait: int):
        self.wait = wait
        super().__init__(f"too many prompts to this phone: wait {wait}s")


def session_repr(session: CheckoutSession) -> dict:
    return checkout_session_repr(session)


# --- What a session offers ----------------------------------------------------------------------


def card_offered(*, merchant: Merchant, livemode: bool, currency: str) -> bool:
    """Card is offered for USD only, when the merchant's card rail and the mode's provider exist
    (in test mode SANDBOX_CARD_ENABLED=false switches the sandbox card rail off)."""
    if currency != Currency.USD or not merchant.card_rail_enabled:
        return False
    if not livemode and not settings.SANDBOX_CARD_ENABLED:
        return False
    return registry.card_available(livemode=livemode)


def mobile_money_takes(*, amount: int, currency: str) -> bool:
    """Whether some network takes this amount (whole units, within its limits)."""
    return money.is_whole(amount) and any(
        networks.network_takes(network=network, currency=currency, amount=amount)
        for network in Network.values
    )


def session_networks(session: CheckoutSession) -> dict[str, str | None]:
    """network → why the page cannot offer it now: "closed" (by staff), "limits" (it does not
    take the session's amount), or None when it is offered."""
    closed = networks_closed(livemode=session.livemode)

    def refusal(network: str) -> str | None:
        if network in closed:
            return "closed"
        if not networks.network_takes(
            network=network, currency=session.currency, amount=session.amount
        ):
            return "limits"
        return None

    return {network: refusal(network) for network in Network.values}


def card_takes_typed(amount: int) -> bool:
    """Whether a card payment may be made of an amount the customer typed (a custom-amount
    payment link): within CARD_CUSTOM_AMOUNT_LIMITS, so that an anonymous page cannot test
    stolen cards a cent at a time, nor open payments of any size (docs/operations/security.md)."""
    low, high = settings.CARD_CUSTOM_AMOUNT_LIMITS
    return low <= amount <= high


def session_payment_methods(
    *, merchant: Merchant, livemode: bool, amount: int, currency: str, typed: bool = False
) -> list[str]:
    """["mobile_money"], ["mobile_money", "card"] or ["card"]; amount_invalid when nothing fits.
    Mobile money is offered when some network takes the amount (a network closed for now is
    still counted: closing is temporary). `typed`: the customer typed the amount (a
    custom-amount payment link): card is offered only within CARD_CUSTOM_AMOUNT_LIMITS."""
    whole = money.is_whole(amount)
    card = card_offered(merchant=merchant, livemode=livemode, currency=currency)
    card = card and (not typed or card_takes_typed(amount))
    if currency == Currency.CDF and not whole:
        raise InvalidRequest(
            _(
                "A CDF session is paid by mobile money, which takes whole francs only: amount "
                "must be a multiple of 100 (e.g. 250000 = 2 500 CDF)."
            ),
            code="amount_invalid",
            param="amount",
        )
    if not whole and not card:
        raise InvalidRequest(
            _(
                "Mobile money takes whole dollars only and card payments are not available: "
                "amount must be a multiple of 100 (e.g. 2000 = 20.00 USD)."
            ),
            code="amount_invalid",
            param="amount",
        )
    within = mobile_money_takes(amount=amount, currency=currency)
    if whole and not within and not card:
        raise InvalidRequest(
            _("No mobile money network takes this amount:")
            + " "
            + " ".join(
                networks.limits_message(network=network, currency=currency)
                for network in Network.values
            ),
            code="amount_invalid",
            param="amount",
        )
    methods = [PaymentMethod.MOBILE_MONEY.value] if within else []
    if card:
        methods.append(PaymentMethod.CARD.value)
    return methods


# --- Creation -----------------------------------------------------------------------------------


@transaction.atomic
def session_create(
    *,
    merchant: Merchant,
    livemode: bool,
    amount: int,
    currency: str,
    success_url: str,
    cancel_url: str,
    metadata: dict | None = None,
    customer_phone: str = "",
    customer_email: str = "",
    customer_language: str = "",
    expires_in: int = DEFAULT_LIFETIME,
    payment_link=None,
) -> CheckoutSession:
    if livemode and not merchant.live_approved:
        raise LiveModeNotApproved()
    methods = session_payment_methods(
        merchant=merchant,
        livemode=livemode,
        amount=amount,
        currency=currency,
        typed=payment_link is not None and payment_link.custom_amount,
    )
    now = timezone.now()
    return CheckoutSession.objects.create(
        merchant=merchant,
        livemode=livemode,
        amount=amount,
        currency=currency,
        success_url=success_url,
        cancel_url=cancel_url,
        metadata=metadata or {},
        customer_phone=customer_phone,
        customer_email=customer_email,
        customer_language=customer_language,
        payment_link=payment_link,
        payment_methods=methods,
        created_at=now,
        updated_at=now,
        expires_at=now + timedelta(seconds=expires_in),
    )


# --- The state machine --------------------------------------------------------------------------


class CompletionRefused(Exception):
    """A receiver of core.events.session_completing refused the completion (its reason)."""


def _session_transition(
    *, session_id: str, to: str, charge: Charge | None = None
) -> CheckoutSession | None:
    """The one place a session's status changes. Returns None when the move is not allowed (the
    session already left `open`): callers decide whether that is an error. A completion that a
    receiver of session_completing refuses raises CompletionRefused, nothing changed."""
    session = (
        CheckoutSession.objects.select_for_update().select_related("merchant").get(pk=session_id)
    )
    if not state.session_can_move(session.status, to):
        return None
    if to == SessionStatus.COMPLETE:
        answers = events.session_completing.send(
            sender=CheckoutSession, instance=session, charge=charge
        )
        refusals = [answer for _receiver, answer in answers if answer]
        if refusals:
            raise CompletionRefused("; ".join(refusals))
    now = timezone.now()
    session.status = to
    session.updated_at = now
    fields = ["status", "updated_at"]
    if to == SessionStatus.COMPLETE:
        session.succeeded_charge = charge
        session.completed_at = now
        fields += ["succeeded_charge", "completed_at"]
    session.save(update_fields=fields)
    events.session_changed.send(
        sender=CheckoutSession,
        instance=session,
        type=state.SESSION_EVENTS[to],
        data=session_repr(session),
        destination_url="",
    )
    return session


@transaction.atomic
def session_on_charge_changed(sender, *, instance: Charge, **kwargs) -> None:
    """checkout/'s receiver of core.events.charge_changed: a charge of a session that reached a
    final status, in the transaction of that change."""
    if instance.checkout_session_id:
        session_charge_finalized(charge=instance)


def session_charge_finalized(*, charge: Charge) -> None:
    """A charge of the session reached a final status. A success completes the session, once.

    A success the session cannot accept — it is already complete with another charge, or it
    expired — stays a succeeded charge (it was paid) and is given back in full at once: a
    refund with reason `late_payment`."""
    if charge.status != ChargeStatus.SUCCEEDED:
        return
    try:
        completed = _session_transition(
            session_id=charge.checkout_session_id, to=SessionStatus.COMPLETE, charge=charge
        )
    except CompletionRefused as refusal:
        # Nothing more can be paid on this session (its payment link is used up): it expires,
        # and this success is given back.
        _session_transition(session_id=charge.checkout_session_id, to=SessionStatus.EXPIRED)
        charges.charge_late_payment(charge_id=charge.id, answer={"refused": str(refusal)})
        return
    if completed is None:
        session = CheckoutSession.objects.get(pk=charge.checkout_session_id)
        if session.succeeded_charge_id != charge.id:
            charges.charge_late_payment(
                charge_id=charge.id,
                answer={"refused": f"checkout session {session.id} is {session.status}"},
            )


@transaction.atomic
def session_expire(*, session: CheckoutSession) -> CheckoutSession:
    """The merchant's POST /v1/checkout/sessions/{id}/expire: open → expired, else refused.
    While an attempt of the session is pending nothing changes (checkout_session_payment_pending):
    the session row lock keeps a new attempt from starting meanwhile."""
    locked = CheckoutSession.objects.select_for_update().get(pk=session.pk)
    if locked.status == SessionStatus.OPEN and _pending_charge(locked) is not None:
        raise CheckoutSessionPaymentPending()
    expired = _session_transition(session_id=session.pk, to=SessionStatus.EXPIRED)
    if expired is None:
        raise CheckoutSessionNotOpen(
            _(
                "Checkout session %(session)s is %(status)s, not open: only an open session can be expired."
            )
            % {"session": session.pk, "status": CheckoutSession.objects.get(pk=session.pk).status},
        )
    return expired


def _pending_charge(session: CheckoutSession) -> Charge | None:
    return session.charges.filter(status=ChargeStatus.PENDING).order_by("-created_at").first()


@transaction.atomic
def session_expire_if_due(*, session_id: str) -> bool:
    """Expire an open session whose time is up. A session with a pending attempt waits for that
    attempt to settle (charges time out on their own), so a payment in flight is never cut off."""
    session = CheckoutSession.objects.select_for_update().get(pk=session_id)
    if session.status != SessionStatus.OPEN or session.expires_at > timezone.now():
        return False
    if _pending_charge(session) is not None:
        return False
    return _session_transition(session_id=session_id, to=SessionStatus.EXPIRED) is not None


@transaction.atomic
def session_cut_short(*, session_id: str) -> bool:
    """An open session's time is up now (its payment link was deactivated): its expires_at
    becomes now, so no new attempt starts, and it expires at once, or, with an attempt pending,
    once that attempt settles, as a session past its time does (a success completes it). True
    if it expired now."""
    session = CheckoutSession.objects.select_for_update().get(pk=session_id)
    if session.status != SessionStatus.OPEN:
        return False
    now = timezone.now()
    if session.expires_at > now:
        session.expires_at = session.updated_at = now
        session.save(update_fields=["expires_at", "updated_at"])
    if _pending_charge(session) is not None:
        return False
    return _session_transition(session_id=session_id, to=SessionStatus.EXPIRED) is not None


def sessions_expire_due(*, limit: int = 500) -> int:
    """The periodic sweep: expire open sessions past expires_at, and cut short the open sessions
    of a deactivated payment link that its deactivation left open (it cuts them short once it
    commits: a process lost in between)."""
    now = timezone.now()
    open_sessions = CheckoutSession.objects.filter(status=SessionStatus.OPEN)
    due = open_sessions.filter(expires_at__lte=now).values_list("id", flat=True)[:limit]
    expired = sum(session_expire_if_due(session_id=session_id) for session_id in list(due))
    left = open_sessions.filter(expires_at__gt=now, payment_link__active=False)
    left = left.values_list("id", flat=True)[:limit]
    return expired + sum(session_cut_short(session_id=session_id) for session_id in list(left))


# --- Payment attempts from the hosted page -------------------------------------------------------


def session_description(session: CheckoutSession) -> str:
    """What the customer is paying for: a payment link's description (what was sold), which its
    page showed, then the session's page and each of its payments carry; none otherwise."""
    return session.payment_link.description if session.payment_link_id else ""


@transaction.atomic
def session_attempt_create(
    *,
    session_id: str,
    payment_method: str,
    phone: str = "",
    network: str = "",
    locale: str = "fr",
) -> Charge:
    """Start a payment attempt for an open session: one pending attempt at a time, none once the
    session is complete or expired. The session row lock serialises two tabs racing."""
    session = (
        CheckoutSession.objects.select_for_update().select_related("merchant").get(pk=session_id)
    )
    if session.status != SessionStatus.OPEN or session.expires_at <= timezone.now():
        raise CheckoutSessionNotOpen()
    if session.customer_language != locale:  # the language of the receipt, if one is sent
        session.customer_language = locale
        session.save(update_fields=["customer_language"])
    if payment_method not in session.payment_methods:
        raise InvalidRequest(
            _("This session does not offer %(method)s.") % {"method": payment_method},
            param="payment_method",
        )
    if payment_method == PaymentMethod.CARD and not card_offered(
        merchant=session.merchant, livemode=session.livemode, currency=session.currency
    ):
        raise CardRailDisabled()
    pending = _pending_charge(session)
    if pending is not None:
        raise AttemptInProgress(pending)
    if session.livemode and payment_method == PaymentMethod.MOBILE_MONEY and phone:
        _phone_prompt_count(phone=phone)
    return charges.charge_create(
        merchant=session.merchant,
        livemode=session.livemode,
        amount=session.amount,
        currency=session.currency,
        payment_method=payment_method,
        phone=phone,
        network=network,
        description=session_description(session),
        metadata=dict(session.metadata),
        checkout_session=session,
        locale=locale,
    )


# --- Prompts per phone ---------------------------------------------------------------------------
# A stream of PIN prompts is how people are tricked into approving a payment, and operators
# suspend merchants over complaints: whatever the merchant, link or client address, the hosted
# pages attempt no more live prompts to one phone than PHONE_PROMPT_LIMITS allows
# (docs/operations/security.md). Counted in the database, under the phone's row lock, in the
# transaction that creates the charge: exact with any number of web processes, and an attempt
# that creates no charge (refused, or rolled back) is not counted.


def _phone_prompt_count(*, phone: str) -> None:
    """Count one live prompt attempt to `phone`, or raise PhonePromptsExceeded (nothing counted)."""
    rates = Rate.parse_list(settings.PHONE_PROMPT_LIMITS)
    now = timezone.now()
    PromptedPhone.objects.bulk_create(
        [PromptedPhone(phone=phone, updated_at=now)], ignore_conflicts=True
    )
    row = PromptedPhone.objects.select_for_update().get(pk=phone)
    clock = now.timestamp()
    longest = max((rate.period for rate in rates), default=0)
    attempts = sorted(at for at in row.attempts if at > clock - longest)
    waits = []
    for rate in rates:
        within = [at for at in attempts if at > clock - rate.period]
        if len(within) >= rate.count:
            # Until enough of them leave the window for one more.
            freed = within[len(within) - rate.count] if rate.count else clock
            waits.append(freed + rate.period - clock)
    if waits:
        raise PhonePromptsExceeded(wait=max(1, int(max(waits) + 0.999)))
    row.attempts = [*attempts, clock]
    row.updated_at = now
    row.save(update_fields=["attempts", "updated_at"])


def phone_prompts_forget() -> int:
    """Delete the counts of phones not prompted within the longest window (beat, hourly). The
    age is stated in the DELETE itself, so that a row an attempt updates meanwhile is kept."""
    rates = Rate.parse_list(settings.PHONE_PROMPT_LIMITS)
    longest = max((rate.period for rate in rates), default=0)
    cutoff = timezone.now() - timedelta(seconds=longest)
    deleted, _rows = PromptedPhone.objects.filter(updated_at__lt=cutoff).delete()
    return deleted


# --- Where the customer goes back to the merchant -------------------------------------------------


def success_redirect_url(session: CheckoutSession, charge: Charge) -> str:
    url = session.success_url.replace(SESSION_ID_PLACEHOLDER, session.id)
    return with_query(
        url, {"session_id": session.id, "transaction_id": charge.id, "status": charge.status}
    )


def cancel_redirect_url(session: CheckoutSession, charge: Charge | None = None) -> str:
    """cancel_url for a failed/declined attempt (with its id and status), or for the customer's
    own cancel (status=canceled, no transaction_id)."""
    params = {"session_id": session.id}
    if charge is not None:
        params.update({"transaction_id": charge.id, "status": charge.status})
    else:
        params["status"] = "canceled"
    return with_query(session.cancel_url, params)
