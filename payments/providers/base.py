"""What crosses the boundary between the core and a provider adapter."""

import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from django.conf import settings
from django.utils.translation import gettext_noop

from core import money
from core.errors import ProviderUnavailable

logger = logging.getLogger("payments.providers")

OutcomeStatus = Literal["pending", "succeeded", "failed", "declined"]


class ProviderError(Exception):
    """The provider could not be reached or answered something unusable (→ provider_unavailable)."""


class ProviderTimeout(ProviderError):
    """The provider did not answer in time: it may or may not have acted on the request."""


class PayoutNotSent(ProviderError):
    """The payout call was never made (no access token or session could be had, or a payout
    credential is unusable): nothing can have been paid, so sending it later is safe. Once the
    call is made, no failure of it raises: the adapter answers a pending outcome instead."""


class InvalidSignature(Exception):
    """A message that claims to come from the provider does not verify."""


class CallbackUnauthenticated(Exception):
    """A callback whose proof of origin (a hash, a token) is missing or wrong."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class CallbackIncomplete(Exception):
    """A callback that does not name the charge or refund it is about (`param` is missing)."""

    def __init__(self, param: str):
        super().__init__(f"Missing required param: {param}.")
        self.param = param


def national_number(phone: str) -> str:
    """The 9-digit national significant number of a +243 number (what operators' APIs take)."""
    return phone[4:]


@dataclass(frozen=True)
class PaymentTaken:
    """A payment of the charge that the provider confirms, besides the one its outcome is
    about: its id at the provider and what the provider said of it (for staff)."""

    reference: str
    raw: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ProviderOutcome:
    """What the provider says about a payment (or a refund) now."""

    status: OutcomeStatus
    failure_code: str = ""
    failure_message: str = ""
    provider_reference: str = ""
    # Seconds after which asking again makes sense (None: use the poller's backoff).
    check_after: float | None = None
    raw: dict = field(default_factory=dict)  # the provider's answer, kept for staff only
    # Other payments of the same charge the provider confirms as taken in full (a card charge
    # paid on two of its attempts): each is given back, never kept.
    other_payments: tuple[PaymentTaken, ...] = ()


@dataclass(frozen=True)
class MobileMoneyPayment:
    charge_id: str
    amount: int  # minor units; operators take whole units (money.is_whole)
    currency: str
    phone: str  # E.164
    network: str
    description: str = ""
    callback_url: str = ""  # where the provider may call us back


@dataclass(frozen=True)
class PaymentQuery:
    charge_id: str
    amount: int
    currency: str
    provider_reference: str
    requested_at: datetime
    phone: str = ""
    network: str = ""
    attempt: str = ""  # card: transaction_uuid of the attempt
    # Set: the question is about this one payment of the charge (the operator's transaction id
    # of a second payment reported for it), asked by that id where the operator's API allows.
    payment_reference: str = ""


@dataclass(frozen=True)
class RefundRequest:
    refund_id: str
    charge_id: str
    amount: int
    charge_amount: int
    currency: str
    provider_reference: str  # of the payment given back (the charge's, or another of its own)
    phone: str = ""
    network: str = ""
    metadata: dict = field(default_factory=dict)


@dataclass(frozen=True)
class RefundQuery:
    """Where does a refund stand? (the status check of a refund the provider answered `pending`)."""

    refund_id: str
    charge_id: str
    amount: int
    currency: str
    provider_reference: str  # of the refund, if the provider gave one
    requested_at: datetime
    network: str = ""


@dataclass(frozen=True)
class PayoutRequest:
    """Money sent to a mobile money wallet. `reference` (our payout id) is the operator's
    transaction id, so the status query finds the payout even when the answer to the call was
    lost."""

    reference: str
    amount: int  # minor units; operators pay whole units (money.is_whole)
    currency: str
    phone: str  # E.164 of the recipient
    network: str
    description: str = ""


@dataclass(frozen=True)
class PayoutQuery:
    """Where does a payout stand? (asked while it is pending)."""

    reference: str  # our payout id
    amount: int
    currency: str
    phone: str
    network: str
    requested_at: datetime  # when the payout was handed to the operator
    provider_reference: str = ""  # the operator's id, if it gave one


@dataclass(frozen=True)
class CardPayment:
    charge_id: str
    amount: int
    currency: str
    receipt_url: str  # where the provider sends the customer (and its signed reply) back
    cancel_url: str
    locale: str = "fr"
    notify_url: str = ""  # the provider's server-to-server copy of the reply (Merchant POST URL)


@dataclass(frozen=True)
class CardRedirect:
    """The signed form the customer's browser posts to the provider's hosted page."""

    payment_url: str
    params: dict[str, str]
    attempt: str  # transaction_uuid


@dataclass(frozen=True)
class CardReply:
    """A verified reply of the hosted page (decision + echoes of the request)."""

    decision: str
    reason_code: str
    transaction_id: str
    reference_number: str
    amount: str
    currency: str
    attempt: str
    raw: dict = field(default_factory=dict)


@dataclass(frozen=True)
class ProviderCallback:
    """An operator's call to /providers/<network>/callback as it reached us (its body already read
    as a JSON object by the one safe loader)."""

    body: dict
    raw_body: bytes
    query: Mapping[str, str]
    headers: Mapping[str, str]


@dataclass(frozen=True)
class CallbackNotice:
    """What an authenticated callback is about: one of our charges, refunds or payouts. A hint,
    never a verdict: it only queues the status check of that charge, refund or payout."""

    charge_id: str = ""
    refund_id: str = ""
    payout_id: str = ""
    # The operator's own id of that transaction, when the callback states one (Orange's
    # `reference`, the airtel_money_id of a payment Airtel reports made): kept as its operator
    # reference if none is known yet, never a status.
    provider_reference: str = ""


class MobileMoneyProvider(Protocol):
    name: str
    # Whether request_payment waits until the customer has answered on the phone (such live calls
    # run on their own queue, PAYMENTS_LONG_QUEUE, so they never hold the other workers).
    blocking: bool
    # The settings without which the adapter cannot be used (its live credentials).
    required_settings: tuple[str, ...]
    # The settings without which it cannot pay out (payouts_configured is false while one is unset).
    payout_settings: tuple[str, ...]

    def request_payment(self, payment: MobileMoneyPayment) -> ProviderOutcome:
        """Send the payment prompt to the customer's phone."""

    def check_status(self, query: PaymentQuery) -> ProviderOutcome:
        """Ask the operator where the payment stands."""

    def refund(self, request: RefundRequest) -> ProviderOutcome:
        """Give money back."""

    def check_refund(self, query: RefundQuery) -> ProviderOutcome:
        """Ask where a refund stands. A provider with no record of it answers `failed`."""

    def payouts_configured(self) -> bool:
        """Whether every setting payouts need is set (if not: provider_unavailable)."""

    def send_payout(self, request: PayoutRequest) -> ProviderOutcome:
        """Pay the recipient, in one call that is never repeated: `succeeded`, `failed` (the
        operator refused it: nothing was paid) or `pending`. Any answer that says nothing about
        the money (no answer in time, a 5xx, a refused token, an unknown code) is `pending`, never
        `failed`: the status query decides. Raises ProviderUnavailable when payouts are not
        configured and PayoutNotSent when the call could not be made at all."""

    def payout_status(self, query: PayoutQuery) -> ProviderOutcome:
        """Ask where a payout stands. No answer, or no record of it, is `pending`, never
        `failed`: failing a payout that was made would let it be paid twice."""


class MobileMoneyNetwork(MobileMoneyProvider, Protocol):
    """The live adapter of one network (settings.LIVE_PAYMENT_ADAPTERS): besides paying, it says
    what the network is called on our pages and in the admin."""

    label: str


class CallingBack(MobileMoneyNetwork, Protocol):
    """The adapter of a network whose operator calls us back (POST /providers/<network>/callback)."""

    # Settings without which its callbacks are refused (403 callbacks_not_configured).
    callback_settings: tuple[str, ...]
    # Optional `callback_paths`: further paths under /providers/<network>/callback/ that reach the
    # same view (an operator that appends one to the URL it was given, e.g. "notifications").

    def parse_callback(self, callback: ProviderCallback) -> CallbackNotice:
        """Authenticate the callback (CallbackUnauthenticated) and say which charge or refund it
        is about (CallbackIncomplete when it names none)."""


class CardProvider(Protocol):
    name: str
    required_settings: tuple[str, ...]

    def start_payment(self, payment: CardPayment) -> CardRedirect:
        """Signed fields for the hosted payment page."""

    def verify_reply(self, fields: dict[str, str]) -> CardReply:
        """Check the signature of a reply posted back through the browser (InvalidSignature)."""

    def check_status(self, query: PaymentQuery) -> ProviderOutcome:
        """Ask the provider for the result of the attempt."""

    def refund(self, request: RefundRequest) -> ProviderOutcome:
        """Give money back."""

    def check_refund(self, query: RefundQuery) -> ProviderOutcome:
        """Ask where a refund stands. A provider with no record of it answers `failed`."""


def table_outcome(
    entry: tuple[str, str, str] | None, *, reference: str = "", raw: dict | None = None
) -> ProviderOutcome:
    """The outcome an entry of a vendor's table says (status, failure_code, message); pending
    when the table has no entry for the answer, which then settles nothing."""
    if entry is None:
        return ProviderOutcome(status="pending", provider_reference=reference, raw=raw or {})
    status, failure_code, message = entry
    return ProviderOutcome(
        status=status,
        failure_code=failure_code,
        failure_message=message,
        provider_reference=reference,
        raw=raw or {},
    )


def refund_unconfirmed(provider: str, query: RefundQuery) -> ProviderOutcome:
    """For operators that publish no refund enquiry: a refund left pending (its answer was lost)
    stays pending for staff to confirm with the operator. Failing it would free money that may
    already have been paid back."""
    return ProviderOutcome(
        status="pending",
        provider_reference=query.provider_reference,
        check_after=3600,
        raw={
            "refund": f"{provider} has no refund enquiry; confirm with the operator, then record "
            "it with the admin's refund actions"
        },
    )


def whole_units_only(provider: str) -> ProviderOutcome:
    """An amount with cents for an operator that pays whole francs or dollars: never sent."""
    return ProviderOutcome(
        status="failed",
        failure_code="amount_invalid",
        failure_message=f"{provider} takes whole units only.",
    )


# The reason a refund waits for staff, kept in its provider_raw (shown on its admin page).
STAFF_REASON = "staff_action"


def payment_reference_unknown(what: str) -> ProviderOutcome:
    """A refund of a payment whose provider id we never learnt: nothing can be sent, and failing
    it would be a guess (the customer did pay). It stays pending for staff, who find the payment
    with the operator, give the money back there, then record it with the refund's admin actions.
    Nothing was sent, so the refund status check keeps it pending too (no record is expected)."""
    return ProviderOutcome(
        status="pending",
        check_after=3600,
        raw={
            STAFF_REASON: f"The {what} of this payment is unknown, so the refund was not sent. "
            "Find the payment with the operator, refund it there, then mark this refund paid "
            "back (or not paid back)."
        },
    )


def payouts_unavailable(label: str, mode: str = "live") -> ProviderUnavailable:
    """The error of a payout on a network whose payout credentials are not set (503)."""
    return ProviderUnavailable(
        gettext_noop(
            "Payouts to %(network)s are not available in %(mode)s mode yet: the operator's payout "
            "credentials are not configured. Please retry later."
        ),
        params={"network": label, "mode": mode},
    )


def payout_unanswered(reason: str, raw: dict | None = None, **fields) -> ProviderOutcome:
    """A payout call or status query whose answer says nothing about the money (no answer in
    time, a 5xx, a refused token, an unknown code or status): pending, the status query decides.
    Never failed: the operator may have paid, and a failed payout frees its amount."""
    return ProviderOutcome(status="pending", raw={"payout": reason, **(raw or {})}, **fields)


class PaysOut:
    """The payout side every mobile money adapter shares. An adapter names its operator in its
    own messages (`operator`), lists the settings its payouts need (`payout_settings`), gets
    ready (`_payout_ready`: a token, an encrypted PIN…) and makes the one call (`_pay_out`).

    A payout on a network whose payout settings are unset is ProviderUnavailable; one in cents on
    a network that pays whole units is failed, never sent; one that could not get ready is
    PayoutNotSent (nothing was sent). Once the call is made, no answer in time and any other
    ProviderError are pending (`payout_check_after`): the status query decides."""

    operator: str
    payout_settings: tuple[str, ...] = ()
    payout_call = "payout"  # names the call in logs ("airtel disbursement")
    payout_check_after: float = 60

    def payouts_configured(self) -> bool:
        return all(getattr(settings, name) for name in self.payout_settings)

    def send_payout(self, request: PayoutRequest) -> ProviderOutcome:
        if not self.payouts_configured():
            raise payouts_unavailable(self.operator)
        if not money.is_whole(request.amount):
            return whole_units_only(self.operator)
        try:
            ready = self._payout_ready()
        except (ProviderError, ValueError) as exc:
            raise PayoutNotSent(f"{self.payout_call} not sent: {exc}") from exc
        try:
            outcome = self._pay_out(request, ready)
        except ProviderTimeout:
            logger.warning(
                "%s %s: no answer in time, will query", self.payout_call, request.reference
            )
            return payout_unanswered("no answer in time", check_after=self.payout_check_after)
        except (ProviderError, ValueError) as exc:
            logger.warning("%s %s: %s", self.payout_call, request.reference, exc)
            return payout_unanswered(str(exc), check_after=self.payout_check_after)
        logger.info("%s %s: %s", self.payout_call, request.reference, outcome.status)
        return outcome

    def _payout_ready(self):
        """What the call needs that can be had without sending anything (ProviderError or
        ValueError when it cannot: the payout is not sent)."""
        return None

    def _pay_out(self, request: PayoutRequest, ready) -> ProviderOutcome:
        raise NotImplementedError
