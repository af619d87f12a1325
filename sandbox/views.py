"""The built-in test card provider's hosted page.

This is the outside world of card payments in test mode: it plays the card provider, so it checks
what a real hosted page checks (signature over `signed_field_names`, required fields signed,
formats, signed time, credentials, a fresh `transaction_uuid`) and keeps its own records in
SandboxTransaction. The customer's choice is recorded there (what the provider's status check
reads) and a signed reply goes back through the browser to the receipt or cancel page.
"""

import hmac
import re
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import urlsplit

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone, translation
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from payments.providers import secure_acceptance
from payments.providers.base import InvalidSignature
from sandbox.models import SandboxTransaction

REQUIRED_SIGNED = (
    "access_key",
    "profile_id",
    "transaction_uuid",
    "signed_field_names",
    "signed_date_time",
    "transaction_type",
    "reference_number",
    "amount",
    "currency",
)
# Where the reply goes; a customer-entered (unsigned) value here would let anyone redirect it.
REPLY_PAGES = ("override_custom_receipt_page", "override_custom_cancel_page")
TRANSACTION_TYPES = frozenset({"sale", "authorization"})
MAX_CLOCK_DIFFERENCE = timedelta(minutes=15)
SIGNED_DATE_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
AMOUNT_RE = re.compile(r"^\d{1,13}\.\d{2}$")
CURRENCY_RE = re.compile(r"^[A-Z]{3}$")
MAX_ID_LENGTH = 50  # transaction_uuid and reference_number

# Button → (decision, reason_code, message), as the provider's reply carries them.
OUTCOMES: dict[str, tuple[str, str, str]] = {
    "accept": ("ACCEPT", "100", "Request was processed successfully."),
    "decline": ("DECLINE", "203", "General decline of the card. No other information provided."),
    "error": ("ERROR", "150", "General system failure."),
    "cancel": ("CANCEL", "", "The customer canceled the payment."),
    "review": ("REVIEW", "201", "The issuing bank has questions about the request."),
}
DECISION_MESSAGES = {decision: message for decision, _, message in OUTCOMES.values()}


@dataclass
class Refused(Exception):
    """The hosted page refuses the request (the provider's error page)."""

    status: int
    reason_code: str
    message: str


def _names(value: str) -> list[str]:
    return [name for name in value.split(",") if name]


def check_request(fields: dict[str, str]) -> None:
    """Raise Refused unless the posted form is one the provider would take."""
    if (
        not hmac.compare_digest(
            fields.get("access_key", "").encode(), settings.SANDBOX_CARD_ACCESS_KEY.encode()
        )
        or fields.get("profile_id") != settings.SANDBOX_CARD_PROFILE_ID
    ):
        raise Refused(403, "102", "Access denied: unknown access_key or profile_id.")
    try:
        secure_acceptance.verify(fields, settings.SANDBOX_CARD_SECRET_KEY)
    except InvalidSignature as exc:
        raise Refused(403, "102", f"Access denied: {exc}.") from exc
    signed = set(_names(fields["signed_field_names"]))
    unsigned = set(_names(fields.get("unsigned_field_names", "")))
    missing = [name for name in REQUIRED_SIGNED if not fields.get(name)]
    if missing:
        raise Refused(400, "101", f"Missing required fields: {', '.join(missing)}.")
    not_signed = [name for name in (*REQUIRED_SIGNED, *REPLY_PAGES) if name in fields]
    not_signed = [name for name in not_signed if name not in signed]
    if not_signed:
        raise Refused(403, "102", f"Fields must be signed: {', '.join(not_signed)}.")
    undeclared = sorted(set(fields) - signed - unsigned - {"signature"})
    if undeclared:
        raise Refused(403, "102", f"Fields neither signed nor unsigned: {', '.join(undeclared)}.")
    _check_signed_time(fields["signed_date_time"])
    invalid = []
    if fields["transaction_type"] not in TRANSACTION_TYPES:
        invalid.append("transaction_type")
    if not AMOUNT_RE.match(fields["amount"]) or int(fields["amount"].replace(".", "")) == 0:
        invalid.append("amount")
    if not CURRENCY_RE.match(fields["currency"]):
        invalid.append("currency")
    for name in ("transaction_uuid", "reference_number"):
        if len(fields[name]) > MAX_ID_LENGTH:
            invalid.append(name)
    for name in REPLY_PAGES:
        url = urlsplit(fields.get(name, ""))
        if url.scheme not in ("http", "https") or not url.netloc:
            invalid.append(name)
    if invalid:
        raise Refused(400, "102", f"Invalid fields: {', '.join(invalid)}.")
    elsewhere = [name for name in REPLY_PAGES if name in fields and not _ours(fields[name])]
    if elsewhere:
        # The signing secret of this test provider may be known to anyone: were it to post its
        # replies anywhere, our domain would be a POST redirector for whoever signs a form.
        raise Refused(
            403, "102", f"Reply pages must be under this service: {', '.join(elsewhere)}."
        )


def _ours(url: str) -> bool:
    """Whether `url` is under PUBLIC_BASE_URL: same scheme, host and port, and below its path."""
    base, target = urlsplit(settings.PUBLIC_BASE_URL), urlsplit(url)
    prefix = base.path.rstrip("/") + "/"
    try:
        same_origin = (target.scheme, target.hostname, target.port) == (
            base.scheme,
            base.hostname,
            base.port,
        )
    except ValueError:  # a port that is no number
        return False
    return same_origin and not target.username and (target.path + "/").startswith(prefix)


def _check_signed_time(value: str) -> None:
    if not SIGNED_DATE_RE.match(value):
        raise Refused(403, "102", "signed_date_time must be yyyy-MM-ddTHH:mm:ssZ (UTC).")
    try:
        signed_at = secure_acceptance.parse_signed_date_time(value)
    except ValueError as exc:
        raise Refused(403, "102", "signed_date_time is not a valid date.") from exc
    if abs(timezone.now() - signed_at) > MAX_CLOCK_DIFFERENCE:
        raise Refused(403, "102", "The request has expired: signed_date_time is too old.")


def record_request(fields: dict[str, str]) -> SandboxTransaction:
    """The provider's own record of the attempt; a repeated transaction_uuid is refused (104)."""
    duplicate = Refused(
        409, "104", "Duplicate transaction: this transaction_uuid was already used."
    )
    if SandboxTransaction.objects.filter(
        kind=SandboxTransaction.Kind.CARD, attempt=fields["transaction_uuid"]
    ).exists():
        raise duplicate
    try:
        with transaction.atomic():
            return SandboxTransaction.objects.create(
                kind=SandboxTransaction.Kind.CARD,
                attempt=fields["transaction_uuid"],
                reference=fields["reference_number"],
                amount=int(fields["amount"].replace(".", "")),
                currency=fields["currency"],
                request={k: v for k, v in fields.items() if k != "signature"},
            )
    except IntegrityError as exc:  # the same form posted twice at once
        raise duplicate from exc


def record_decision(*, record: SandboxTransaction, outcome: str) -> SandboxTransaction:
    """The first decision is final; clicking again (or going back) replays it."""
    decision, reason_code, _ = OUTCOMES[outcome]
    SandboxTransaction.objects.filter(pk=record.pk, decision="").update(
        decision=decision, reason_code=reason_code, answered_at=timezone.now()
    )
    record.refresh_from_db()
    return record


def reply_fields(record: SandboxTransaction) -> dict[str, str]:
    """The signed reply, as the provider posts it (through the browser) to the merchant."""
    request = record.request
    fields = {
        "decision": record.decision,
        "reason_code": record.reason_code,
        "message": DECISION_MESSAGES.get(record.decision, ""),
        "transaction_id": record.id,
        "req_reference_number": request["reference_number"],
        "req_transaction_uuid": request["transaction_uuid"],
        "req_amount": request["amount"],
        "req_currency": request["currency"],
        "req_transaction_type": request["transaction_type"],
        "req_locale": request.get("locale", ""),
    }
    if record.decision == "ACCEPT":
        fields["auth_amount"] = request["amount"]
        fields["auth_code"] = record.id[-6:].upper()
        fields["auth_time"] = secure_acceptance.signed_date_time(record.answered_at)
    fields = {name: value for name, value in fields.items() if value}
    fields["signed_date_time"] = secure_acceptance.signed_date_time(timezone.now())
    fields["signed_field_names"] = ",".join([*fields, "signed_field_names"])
    fields["signature"] = secure_acceptance.sign(fields, settings.SANDBOX_CARD_SECRET_KEY)
    return fields


def reply_target(record: SandboxTransaction) -> str:
    page = "override_custom_cancel_page" if record.decision == "CANCEL" else REPLY_PAGES[0]
    return record.request.get(page) or record.request[REPLY_PAGES[0]]


def _language(locale: str) -> str:
    language = (locale or "").split("-")[0].lower()
    return language if language in ("fr", "en") else settings.LANGUAGE_CODE


def _refused(request: HttpRequest, refused: Refused, locale: str = "") -> HttpResponse:
    with translation.override(_language(locale)):
        return render(
            request,
            "sandbox/card_error.html",
            {"reason_code": refused.reason_code, "message": refused.message},
            status=refused.status,
        )


@csrf_exempt
@require_POST
def pay(request: HttpRequest) -> HttpResponse:
    """The hosted payment page: the merchant's signed form arrives here."""
    fields = request.POST.dict()
    try:
        check_request(fields)
        record = record_request(fields)
    except Refused as refused:
        return _refused(request, refused, fields.get("locale", ""))
    with translation.override(_language(fields.get("locale", ""))):
        return render(
            request,
            "sandbox/card_pay.html",
            {
                "record": record,
                "reference": fields["reference_number"],
                "amount": fields["amount"],
                "currency": fields["currency"],
                "outcomes": OUTCOMES,
            },
        )


@csrf_exempt
@require_POST
def decide(request: HttpRequest, transaction_id: str) -> HttpResponse:
    """The customer's choice on the page; answers with the auto-submitting signed reply."""
    record = SandboxTransaction.objects.filter(
        pk=transaction_id, kind=SandboxTransaction.Kind.CARD
    ).first()
    if record is None:
        return _refused(request, Refused(404, "102", "Unknown transaction."))
    outcome = request.POST.get("outcome", "")
    if outcome not in OUTCOMES:
        return _refused(
            request, Refused(400, "102", "Unknown outcome."), record.request.get("locale", "")
        )
    record = record_decision(record=record, outcome=outcome)
    with translation.override(_language(record.request.get("locale", ""))):
        return render(
            request,
            "sandbox/card_reply.html",
            {"target": reply_target(record), "fields": reply_fields(record), "record": record},
        )
