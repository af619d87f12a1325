"""The built-in test providers. They implement the very same protocols as the live
adapters; their "outside world" state lives in the sandbox app's SandboxTransaction.

Mobile money: the outcome is chosen by the last three digits of the phone number and becomes
visible to a status check SANDBOX_MOBILE_MONEY_DELAY seconds after the prompt was sent.
Card: the hosted page at /sandbox/card/pay records the customer's choice, one record per attempt;
the status check reads them all and reports every attempt paid (the first settles the charge, the
others ride along as other payments, to be given back). Mobile money asked about one payment of a
charge (PaymentQuery.payment_reference) answers for that transaction.
The phone ending in 005 pays late: its status check answers pending until the
prompt's deadline (MOBILE_MONEY_PROMPT_TIMEOUT after it was sent) has passed — the first check
after it still answers pending, as the customer approves only then — and succeeded afterwards.
Refunds: succeeded at once, unless the refund's metadata "sandbox_refund" asks otherwise
(REFUND_BEHAVIOURS).
Payouts: the outcome is chosen by the last three digits of the recipient's phone
(PAYOUT_SUFFIXES); the payout call answers pending, and a status check made
SANDBOX_MOBILE_MONEY_DELAY seconds after the payout was sent answers the outcome. The sandbox
operator keeps no record of payouts: the outcome follows from the phone and the time the payout
was sent, both in the status query.
"""

from dataclasses import replace

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from core.links import public_url
from payments.providers import secure_acceptance
from payments.providers.base import (
    CardPayment,
    CardRedirect,
    CardReply,
    MobileMoneyPayment,
    PaymentQuery,
    PaymentTaken,
    PayoutQuery,
    PayoutRequest,
    PaysOut,
    ProviderOutcome,
    RefundQuery,
    RefundRequest,
    table_outcome,
)
from sandbox.models import SandboxTransaction

# Last three digits → (status, failure_code, failure_message). None: the customer never answers.
MOBILE_MONEY_SUFFIXES: dict[str, tuple[str, str, str] | None] = {
    "001": ("declined", "insufficient_funds", "The customer's balance is too low."),
    "002": ("declined", "customer_rejected", "The customer rejected the payment prompt."),
    "003": None,
    "004": ("failed", "provider_error", "The operator could not complete the payment."),
}
SUCCESS = ("succeeded", "", "")
LATE_SUFFIX = "005"  # approved by the customer only after the prompt's deadline
# The numbers a test-mode checkout page offers to try (sandbox.context): one the customer
# approves, and the declines, as a customer types them.
APPROVING_NUMBER = "0812 345 678"
DECLINING_SUFFIXES = ("001", "002")


def test_numbers() -> list[tuple[str, str, str]]:
    """(number as typed, status, failure_code): what each test number does, from the table
    above, so that the pages and the sandbox never disagree."""
    numbers = [(APPROVING_NUMBER, *SUCCESS[:2])]
    for suffix in DECLINING_SUFFIXES:
        status, code, _message = MOBILE_MONEY_SUFFIXES[suffix]
        numbers.append((f"{APPROVING_NUMBER[:-3]}{suffix}", status, code))
    return numbers


# Payouts: last three digits of the recipient's phone → (status, failure_code, failure_message).
PAYOUT_SUFFIXES: dict[str, tuple[str, str, str]] = {
    "001": ("failed", "recipient_invalid", "The operator does not know this recipient."),
    "004": ("failed", "provider_error", "The operator could not complete the payout."),
}

# Refunds: the metadata key "sandbox_refund" chooses what the sandbox operator does with a refund,
# as (first answer, answer of the status check once SANDBOX_MOBILE_MONEY_DELAY has passed).
REFUND_BEHAVIOUR_KEY = "sandbox_refund"
REFUND_BEHAVIOURS: dict[str, tuple[str, str]] = {
    "": ("succeeded", "succeeded"),  # absent or unknown: succeeded at once
    "fail": ("failed", "failed"),
    "pending": ("pending", "succeeded"),
    "pending_fail": ("pending", "failed"),
}


class SandboxMobileMoney(PaysOut):
    name = "sandbox"
    operator = "The sandbox operator"
    blocking = False
    required_settings = ()
    payout_settings = ()

    def request_payment(self, payment: MobileMoneyPayment) -> ProviderOutcome:
        record = _record_request(
            SandboxTransaction.Kind.MOBILE_MONEY,
            {
                "amount": payment.amount,
                "currency": payment.currency,
                "phone": payment.phone,
                "network": payment.network,
                "request": {"description": payment.description},
            },
            reference=payment.charge_id,
        )
        return ProviderOutcome(
            status="pending",
            provider_reference=record.id,
            check_after=settings.SANDBOX_MOBILE_MONEY_DELAY,
            raw={"sandbox": "prompt sent", "transaction": record.id},
        )

    def check_status(self, query: PaymentQuery) -> ProviderOutcome:
        # The charge's first transaction; asked about one payment of it (a second one reported
        # under another transaction id), that transaction, as the operator looks it up by its id.
        records = SandboxTransaction.objects.filter(
            kind=SandboxTransaction.Kind.MOBILE_MONEY, reference=query.charge_id
        ).order_by("created_at", "id")
        if query.payment_reference:
            records = records.filter(pk=query.payment_reference)
        record = records.first()
        if record is None:
            return ProviderOutcome(status="pending", raw={"sandbox": "no such transaction yet"})
        waited = (timezone.now() - record.created_at).total_seconds()
        delay = settings.SANDBOX_MOBILE_MONEY_DELAY
        if waited < delay:
            return ProviderOutcome(
                status="pending",
                provider_reference=record.id,
                check_after=delay - waited,
                raw={"sandbox": "waiting for the customer"},
            )
        if record.phone.endswith(LATE_SUFFIX) and not _paid_late(record, query):
            return ProviderOutcome(
                status="pending", provider_reference=record.id, raw={"sandbox": "no answer yet"}
            )
        answer = MOBILE_MONEY_SUFFIXES.get(record.phone[-3:], SUCCESS)
        if answer is None:
            return ProviderOutcome(
                status="pending", provider_reference=record.id, raw={"sandbox": "no answer"}
            )
        status, code, _ = answer
        if record.answered_at is None:
            SandboxTransaction.objects.filter(pk=record.pk).update(
                answered_at=timezone.now(), decision=status
            )
        return table_outcome(
            answer, reference=record.id, raw={"sandbox": status, "failure_code": code}
        )

    def refund(self, request: RefundRequest) -> ProviderOutcome:
        return _sandbox_refund(request)

    def check_refund(self, query: RefundQuery) -> ProviderOutcome:
        return _sandbox_check_refund(query)

    def _pay_out(self, request: PayoutRequest, ready: None) -> ProviderOutcome:
        return ProviderOutcome(
            status="pending",
            provider_reference=_payout_reference(request.reference),
            check_after=settings.SANDBOX_MOBILE_MONEY_DELAY,
            raw={"sandbox": "payout sent"},
        )

    def payout_status(self, query: PayoutQuery) -> ProviderOutcome:
        reference = _payout_reference(query.reference)
        waited = (timezone.now() - query.requested_at).total_seconds()
        delay = settings.SANDBOX_MOBILE_MONEY_DELAY
        if waited < delay:
            return ProviderOutcome(
                status="pending",
                provider_reference=reference,
                check_after=delay - waited,
                raw={"sandbox": "payout in progress"},
            )
        answer = PAYOUT_SUFFIXES.get(query.phone[-3:], SUCCESS)
        return table_outcome(
            answer, reference=reference, raw={"sandbox": answer[0], "failure_code": answer[1]}
        )


def _record_request(kind: str, defaults: dict, **lookup) -> SandboxTransaction:
    """The sandbox operator records a request once: a repeat of it is counted, never acted on."""
    with transaction.atomic():
        record, created = SandboxTransaction.objects.get_or_create(
            kind=kind, defaults=defaults, **lookup
        )
        if not created:
            SandboxTransaction.objects.filter(pk=record.pk).update(
                request_count=F("request_count") + 1
            )
    return record


def _payout_reference(payout_id: str) -> str:
    """The sandbox operator's id of a payout (derived from ours: it keeps no record)."""
    return f"sbx_{payout_id.split('_', 1)[-1]}"


def _paid_late(record: SandboxTransaction, query: PaymentQuery) -> bool:
    """The 005 customer: nothing before the prompt's deadline; the first check after it marks the
    approval (still pending for that check), every later check sees the payment made."""
    deadline = query.requested_at.timestamp() + settings.MOBILE_MONEY_PROMPT_TIMEOUT
    if timezone.now().timestamp() < deadline:
        return False
    if record.decision:  # "late" once marked, then "succeeded" once answered
        return True
    SandboxTransaction.objects.filter(pk=record.pk, decision="").update(decision="late")
    return False


def _card_raw(record: SandboxTransaction) -> dict:
    return {
        "transaction": record.id,
        "attempt": record.attempt,
        "decision": record.decision,
        "reason_code": record.reason_code,
    }


def _sandbox_refund(request: RefundRequest) -> ProviderOutcome:
    """The sandbox operator takes the refund once (a repeated request for the same refund id is
    counted, not paid twice) and answers according to REFUND_BEHAVIOURS."""
    behaviour = request.metadata.get(REFUND_BEHAVIOUR_KEY, "")
    first, then = REFUND_BEHAVIOURS.get(behaviour, REFUND_BEHAVIOURS[""])
    record = _record_request(
        SandboxTransaction.Kind.REFUND,
        {
            "reference": request.refund_id,
            "amount": request.amount,
            "currency": request.currency,
            "network": request.network,
            "phone": request.phone,
            "decision": first,
            "answered_at": None if first == "pending" else timezone.now(),
            "request": {
                "charge": request.charge_id,
                "payment": request.provider_reference,
                "then": then,
            },
        },
        attempt=request.refund_id,
    )
    return _refund_outcome(record)


def _refund_outcome(record: SandboxTransaction) -> ProviderOutcome:
    raw = {"sandbox": record.decision, "transaction": record.id}
    if record.decision == "pending":
        waited = (timezone.now() - record.created_at).total_seconds()
        return ProviderOutcome(
            status="pending",
            provider_reference=record.id,
            check_after=max(settings.SANDBOX_MOBILE_MONEY_DELAY - waited, 0),
            raw=raw,
        )
    if record.decision == "failed":
        return ProviderOutcome(
            status="failed",
            failure_code="provider_error",
            failure_message="The sandbox operator refused the refund.",
            provider_reference=record.id,
            raw=raw,
        )
    return ProviderOutcome(status="succeeded", provider_reference=record.id, raw=raw)


def _sandbox_check_refund(query: RefundQuery) -> ProviderOutcome:
    """A pending sandbox refund is settled by the first status check made at least
    SANDBOX_MOBILE_MONEY_DELAY seconds after it was asked for."""
    record = SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.REFUND, attempt=query.refund_id
    ).first()
    if record is None:
        return ProviderOutcome(
            status="failed",
            failure_code="provider_error",
            failure_message="The operator has no record of this refund.",
            raw={"sandbox": "no such refund"},
        )
    waited = (timezone.now() - record.created_at).total_seconds()
    if record.decision == "pending" and waited >= settings.SANDBOX_MOBILE_MONEY_DELAY:
        decision = record.request.get("then", "succeeded")
        SandboxTransaction.objects.filter(pk=record.pk, decision="pending").update(
            decision=decision, answered_at=timezone.now()
        )
        record.refresh_from_db()
    return _refund_outcome(record)


class SandboxCard:
    name = "sandbox"
    required_settings = ()

    def start_payment(self, payment: CardPayment) -> CardRedirect:
        return secure_acceptance.payment_redirect(
            payment,
            access_key=settings.SANDBOX_CARD_ACCESS_KEY,
            profile_id=settings.SANDBOX_CARD_PROFILE_ID,
            secret_key=settings.SANDBOX_CARD_SECRET_KEY,
            payment_url=public_url("sandbox-card-pay"),
        )

    def verify_reply(self, fields: dict[str, str]) -> CardReply:
        return secure_acceptance.verified_reply(fields, settings.SANDBOX_CARD_SECRET_KEY)

    def check_status(self, query: PaymentQuery) -> ProviderOutcome:
        # Every attempt of the charge, as the card provider's transaction search finds them all
        # (the customer may have gone back to the payment page and answered the old one late,
        # or paid on two tabs); only attempts we issued count. The first payment taken settles
        # the charge, and every other attempt paid is reported beside it; with none paid, the
        # current attempt decides.
        records = [
            r
            for r in SandboxTransaction.objects.filter(
                kind=SandboxTransaction.Kind.CARD, reference=query.charge_id
            )
            .exclude(decision="")
            .order_by("answered_at", "created_at", "id")
            if r.attempt == query.attempt
            or secure_acceptance.attempt_issued(query.charge_id, r.attempt)
        ]
        paid = [r for r in records if r.decision == "ACCEPT" and r.reason_code != "110"]
        record = (paid or [None])[0] or next(
            (r for r in records if r.attempt == query.attempt), None
        )
        if record is None:
            return ProviderOutcome(status="pending", raw={"sandbox": "no decision yet"})
        outcome = secure_acceptance.card_outcome(
            record.decision, record.reason_code, record.id, _card_raw(record)
        )
        others = tuple(PaymentTaken(reference=r.id, raw=_card_raw(r)) for r in paid[1:])
        return replace(outcome, other_payments=others) if others else outcome

    def refund(self, request: RefundRequest) -> ProviderOutcome:
        return _sandbox_refund(request)

    def check_refund(self, query: RefundQuery) -> ProviderOutcome:
        return _sandbox_check_refund(query)
