"""HMAC signing and verification of the hosted-payment protocol (CyberSource Secure Acceptance).

Shared by the built-in test card provider and the live card adapter. The string to sign is
`name=value` for each name of `signed_field_names`, in that order, joined by commas; the signature
is base64(HMAC-SHA256(secret_key_utf8, string_utf8)).
"""

import base64
import hashlib
import hmac
import uuid
from datetime import UTC, datetime

from django.conf import settings

from core import money
from payments.providers.base import (
    CardPayment,
    CardRedirect,
    CardReply,
    InvalidSignature,
    ProviderOutcome,
    table_outcome,
)

SIGNED_DATE_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

REQUEST_SIGNED_FIELDS = (
    "access_key",
    "profile_id",
    "transaction_uuid",
    "signed_field_names",
    "unsigned_field_names",
    "signed_date_time",
    "locale",
    "transaction_type",
    "reference_number",
    "amount",
    "currency",
    "override_custom_receipt_page",
    "override_custom_cancel_page",
)
# Where the provider also POSTs the reply server to server (the Merchant POST URL), signed too.
BACKOFFICE_FIELD = "override_backoffice_post_url"
# The `locale` field takes a locale code of Secure Acceptance's "Checkout Language Localization"
# table (e.g. `<input type="hidden" name="locale" value="en-us">`): French is fr-fr, American
# English en-us. Our pages speak French and English; their language becomes that code.
LOCALES = {"fr": "fr-fr", "en": "en-us"}


def form_locale(language: str) -> str:
    """The documented locale code of a page language (`fr`, `en`, `en-US`…); French otherwise."""
    code = (language or "").strip().lower().replace("_", "-")
    if code in LOCALES.values():
        return code
    return LOCALES.get(code.split("-")[0], LOCALES["fr"])


def data_to_sign(fields: dict[str, str], signed_field_names: str | None = None) -> str:
    names = (signed_field_names or fields["signed_field_names"]).split(",")
    return ",".join(f"{name}={fields.get(name, '')}" for name in names)


def sign(fields: dict[str, str], secret_key: str, signed_field_names: str | None = None) -> str:
    message = data_to_sign(fields, signed_field_names).encode("utf-8")
    digest = hmac.new(secret_key.encode("utf-8"), message, hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def verify(fields: dict[str, str], secret_key: str) -> None:
    """Raise InvalidSignature unless `signature` matches `signed_field_names` of the fields."""
    names = fields.get("signed_field_names", "")
    signature = fields.get("signature", "")
    if not names or not signature:
        raise InvalidSignature("signed_field_names and signature are required")
    if "signed_field_names" not in names.split(","):
        raise InvalidSignature("signed_field_names must itself be signed")
    expected = sign(fields, secret_key)
    if not hmac.compare_digest(expected.encode(), signature.encode()):
        raise InvalidSignature("signature does not match")


def signed_date_time(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).astimezone(UTC).strftime(SIGNED_DATE_FORMAT)


def parse_signed_date_time(value: str) -> datetime:
    return datetime.strptime(value, SIGNED_DATE_FORMAT).replace(tzinfo=UTC)


def build_request(
    *,
    access_key: str,
    profile_id: str,
    secret_key: str,
    reference_number: str,
    amount: int,
    currency: str,
    receipt_url: str,
    cancel_url: str,
    locale: str = "fr",
    notify_url: str = "",
    now: datetime | None = None,
) -> dict[str, str]:
    """The signed fields of one payment attempt (a fresh transaction_uuid each time); `locale` is
    the page language, sent as its documented locale code (form_locale)."""
    names = (*REQUEST_SIGNED_FIELDS, BACKOFFICE_FIELD) if notify_url else REQUEST_SIGNED_FIELDS
    fields = {
        "access_key": access_key,
        "profile_id": profile_id,
        "transaction_uuid": new_attempt(reference_number),
        "signed_field_names": ",".join(names),
        "unsigned_field_names": "",
        "signed_date_time": signed_date_time(now),
        "locale": form_locale(locale),
        "transaction_type": "sale",
        "reference_number": reference_number,
        "amount": money.major_units(amount),
        "currency": currency,
        "override_custom_receipt_page": receipt_url,
        "override_custom_cancel_page": cancel_url,
    }
    if notify_url:
        fields[BACKOFFICE_FIELD] = notify_url
    fields["signature"] = sign(fields, secret_key)
    return fields


def verified_reply(fields: dict[str, str], secret_key: str) -> CardReply:
    """The CardReply of a reply whose signature verifies (InvalidSignature otherwise)."""
    verify(fields, secret_key)
    try:
        return CardReply(
            decision=fields["decision"],
            reason_code=fields.get("reason_code", ""),
            transaction_id=fields.get("transaction_id", ""),
            reference_number=fields["req_reference_number"],
            amount=fields["req_amount"],
            currency=fields["req_currency"],
            attempt=fields.get("req_transaction_uuid", ""),
            raw=dict(fields),
        )
    except KeyError as exc:
        raise InvalidSignature(f"reply lacks {exc}") from exc


def _attempt_tag(reference_number: str, nonce: str) -> str:
    message = f"card-attempt:{reference_number}:{nonce}".encode()
    return hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:16]


def new_attempt(reference_number: str) -> str:
    """A fresh transaction_uuid (32 hex characters) that proves, without being stored, that we
    issued it for this charge: 16 random characters and their HMAC with our SECRET_KEY. So a
    reply to an earlier attempt of the charge (the customer went back to the payment page, which
    signs a new attempt) is still recognised as ours."""
    nonce = uuid.uuid4().hex[:16]
    return nonce + _attempt_tag(reference_number, nonce)


def attempt_issued(reference_number: str, attempt: str) -> bool:
    """Whether `attempt` is a transaction_uuid we issued for this charge (new_attempt)."""
    if len(attempt) != 32:
        return False
    return hmac.compare_digest(attempt[16:], _attempt_tag(reference_number, attempt[:16]))


def payment_redirect(
    payment: CardPayment, *, access_key: str, profile_id: str, secret_key: str, payment_url: str
) -> CardRedirect:
    """The signed form of one attempt at `payment`, posted to the provider's hosted page."""
    params = build_request(
        access_key=access_key,
        profile_id=profile_id,
        secret_key=secret_key,
        reference_number=payment.charge_id,
        amount=payment.amount,
        currency=payment.currency,
        receipt_url=payment.receipt_url,
        cancel_url=payment.cancel_url,
        locale=payment.locale,
        notify_url=payment.notify_url,
    )
    return CardRedirect(payment_url=payment_url, params=params, attempt=params["transaction_uuid"])


# Card decisions of the hosted-payment protocol → our outcome.
CARD_DECISIONS: dict[str, tuple[str, str, str]] = {
    "ACCEPT": ("succeeded", "", ""),
    "DECLINE": ("declined", "card_declined", "The card was declined."),
    "ERROR": ("failed", "processing_error", "The card payment could not be processed."),
    "CANCEL": ("failed", "canceled", "The customer canceled the card payment."),
}


def card_outcome(decision: str, reason_code: str, reference: str, raw: dict) -> ProviderOutcome:
    """The outcome of a decision of the hosted page. REVIEW and unknown stay pending; an
    ACCEPT with reason 110 (only part of the amount approved) is not a success."""
    mapped = CARD_DECISIONS.get(decision.upper())
    if mapped and mapped[0] == "succeeded" and str(reason_code) == "110":
        mapped = ("failed", "partial_approval", "The card issuer approved only part of the amount.")
    return table_outcome(mapped, reference=reference, raw=raw)
