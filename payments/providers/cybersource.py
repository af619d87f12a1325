"""Live card payments: CyberSource Secure Acceptance Hosted Checkout + the Transaction Search API.

- start_payment: the signed form of secure_acceptance.build_request with the live access key,
  profile and secret; the customer's browser posts it to CARD_PROVIDER_URL.
- verify_reply: the reply the browser brings back to /card/receipt, and the copy CyberSource POSTs
  server to server to /card/notify (override_backoffice_post_url, signed in the form), is
  verified with the same secret (secure_acceptance.verify); either only triggers check_status.
- check_status: POST /tss/v2/searches on CARD_REST_BASE_URL for clientReferenceInformation.code =
  our charge id (Secure Acceptance's reference_number), authenticated with an HTTP Signature
  (v-c-merchant-id, Date, Host, Digest, HmacSHA256 with the base64-decoded shared secret), signed
  and sent as CyberSource's own SDKs do (see SIGNED_HEADERS). Search results lag by seconds to
  minutes: nothing found → pending.
- refund: POST /pts/v2/payments/{id}/refunds ("Refund a Payment", for authorisation and capture
  made together, which a Secure Acceptance `sale` is), id = the payment's transaction id, our refund
  id as clientReferenceInformation.code. 201 `PENDING` means CyberSource took the credit for the
  next settlement batch: the refund has succeeded for us. 400 INVALID_REQUEST is a refusal
  (failed), and so is a 201 whose status is DECLINED or INVALID_REQUEST (no credit was made).
  Not idempotent, so never retried: a timeout or a 5xx/502 SERVER_ERROR leaves it pending.
- check_refund (only for a refund whose answer was lost): the same search, for our refund id. Found
  and accepted → succeeded; found and refused → failed; nothing found → still pending for staff
  (never failed by guesswork: failing would free money that may have been given back).

- Amounts: only reason 100 with the amount of our signed form is a success. Reason 110 (partial
  approval) or an authorizedAmount other than the charge's is a failure (`partial_approval`,
  `amount_mismatch`: the charge is for its whole amount; what was taken is for staff to give back);
  an accepted summary that states no amount at all (neither totalAmount nor authorizedAmount) says
  nothing and stays pending.

Confirm with CyberSource before going live: whether transaction summaries carry
orderInformation.amountDetails.authorizedAmount (we check it when present) and whether the
Secure Acceptance profile may ever allow partial authorisations (it should not), that the Secure Acceptance transaction id is accepted
by the refund API as a payment id, that reference_number is searchable as
clientReferenceInformation.code for Secure Acceptance payments, the fields of a transaction
summary used below (applicationInformation.reasonCode / rCode / applications, orderInformation
.amountDetails), and the receipt/cancel override fields being enabled on the profile.
"""

import base64
import hashlib
import hmac
import json
import logging
from dataclasses import replace
from email.utils import formatdate
from urllib.parse import urlsplit

from django.conf import settings

from core import money
from payments.providers import http, secure_acceptance
from payments.providers.base import (
    CardPayment,
    CardRedirect,
    CardReply,
    PaymentQuery,
    PaymentTaken,
    ProviderError,
    ProviderOutcome,
    RefundQuery,
    RefundRequest,
    payment_reference_unknown,
    table_outcome,
)

logger = logging.getLogger("payments.providers.cybersource")

SEARCH_PATH = "/tss/v2/searches"
REFUND_PATH = "/pts/v2/payments/{id}/refunds"
# HTTP Signature as CyberSource's own SDKs compute it (cybersource-rest-client-python 0.0.80,
# authenticationsdk/http/HTTPSignatureToken.py and GetSignatureParameter.py; the Node SDK 0.0.83,
# src/authentication/http/HTTPSigToken.js and SignatureParameterGenerator.js): the pseudo-header
# is named `request-target`, without the parentheses of the IETF draft, in the `headers=` list and
# in the string signed alike.
SIGNED_HEADERS = "host date request-target digest v-c-merchant-id"
# The media types each endpoint answers, as the SDKs send them (search_transactions_api and
# refund_api of the same versions): the search answers JSON, the refund HAL+JSON.
SEARCH_MEDIA = {"Accept": "application/json;charset=utf-8",
                "Content-Type": "application/json;charset=utf-8"}  # fmt: skip
REFUND_MEDIA = {"Accept": "application/hal+json", "Content-Type": "application/json"}
# 400 INVALID_REQUEST reasons of a refused refund → what the merchant is told.
REFUND_REFUSALS = {
    "INVALID_AMOUNT": ("amount_invalid", "The card provider refused the refund amount."),
    "ACCOUNT_NOT_ALLOWED_CREDIT": (
        "provider_error",
        "The card's account does not accept refunds; refund the customer another way.",
    ),
    "CAPTURE_ALREADY_VOIDED": ("provider_error", "This card payment was voided."),
    "INVALID_CARD": ("provider_error", "The card can no longer receive a refund."),
}

# Statuses of a 201 answer to "Refund a Payment" that refuse the credit (the SDK's
# PtsV2PaymentsRefundPost201Response: PENDING, DECLINED, INVALID_REQUEST).
REFUND_REFUSED_STATUSES = {"DECLINED", "INVALID_REQUEST"}

ACCEPT_REASONS = {"100"}
# 110: "only a partial amount was approved". Never a success: the charge is for its whole amount.
PARTIAL_APPROVAL = "110"
DECLINE_REASONS = {
    "202", "203", "204", "205", "207", "208", "210", "211", "221", "222",
    "231", "232", "233", "234", "236", "240", "475", "476", "478", "481",
}  # fmt: skip
ERROR_REASONS = {"102", "104", "150", "151", "152"}
# 200, 201, 230, 480, 520 (review) and anything unknown stay pending.


def digest(body: bytes) -> str:
    return "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode()


def signature_header(
    *, host: str, date: str, method: str, path: str, body_digest: str, merchant_id: str
) -> str:
    """The Signature header of the REST API's HTTP Signature authentication."""
    signing_string = "\n".join(
        [
            f"host: {host}",
            f"date: {date}",
            f"request-target: {method.lower()} {path}",
            f"digest: {body_digest}",
            f"v-c-merchant-id: {merchant_id}",
        ]
    )
    key = base64.b64decode(settings.CARD_REST_SHARED_SECRET)
    signed = base64.b64encode(
        hmac.new(key, signing_string.encode("utf-8"), hashlib.sha256).digest()
    ).decode()
    return (
        f'keyid="{settings.CARD_REST_KEY_ID}", algorithm="HmacSHA256", '
        f'headers="{SIGNED_HEADERS}", signature="{signed}"'
    )


def outcome_for_summaries(summaries: list, query: PaymentQuery) -> ProviderOutcome:
    """The result of our payment among the search results (newest first wins, success wins).
    Every other summary of the charge accepted for its whole amount is another payment taken
    (an older attempt's page, left open in another tab, paid too): it rides along as one of the
    outcome's other_payments, whatever the outcome, so that it is given back."""
    ours = [
        s
        for s in summaries
        if isinstance(s, dict)
        and str((s.get("clientReferenceInformation") or {}).get("code", "")) == query.charge_id
    ]
    ours.sort(key=lambda s: str(s.get("submitTimeUtc", "")), reverse=True)
    outcome = _outcome_of(ours, query)
    others = tuple(
        PaymentTaken(reference=str(s.get("id", "")), raw={"search": [_summary_raw(s)]})
        for s in ours
        if _taken_in_full(s, query) and str(s.get("id", "")) not in ("", outcome.provider_reference)
    )
    return replace(outcome, other_payments=others) if others else outcome


def _taken_in_full(summary: dict, query: PaymentQuery) -> bool:
    """Whether a summary is a payment accepted for the charge's whole amount and currency."""
    expected_amount = money.major_units(query.amount)
    amounts = (summary.get("orderInformation") or {}).get("amountDetails") or {}
    authorized = amounts.get("authorizedAmount")
    return (
        _reason(summary) in ACCEPT_REASONS
        and str(amounts.get("totalAmount", expected_amount)) == expected_amount
        and str(amounts.get("currency", query.currency)).upper() == query.currency
        and ("totalAmount" in amounts or authorized is not None)
        and (authorized is None or str(authorized) == expected_amount)
    )


def _outcome_of(ours: list, query: PaymentQuery) -> ProviderOutcome:
    """The outcome the charge's summaries (newest first) say."""
    raw = {"search": [_summary_raw(s) for s in ours[:5]]}
    expected_amount = money.major_units(query.amount)
    for summary in ours:
        reason = _reason(summary)
        amounts = (summary.get("orderInformation") or {}).get("amountDetails") or {}
        if reason not in ACCEPT_REASONS | {PARTIAL_APPROVAL}:
            continue
        if (
            str(amounts.get("totalAmount", expected_amount)) != expected_amount
            or str(amounts.get("currency", query.currency)).upper() != query.currency
        ):
            logger.error("card search for %s: amount or currency differs", query.charge_id)
            continue  # not the payment our signed form asked for
        authorized = amounts.get("authorizedAmount")
        reference = str(summary.get("id", ""))
        if reason == PARTIAL_APPROVAL or (
            authorized is not None and str(authorized) != expected_amount
        ):
            logger.error("card search for %s: %s authorised", query.charge_id, authorized)
            return ProviderOutcome(
                status="failed",
                failure_code="partial_approval"
                if reason == PARTIAL_APPROVAL
                else "amount_mismatch",
                failure_message="The card issuer approved only part of the amount; "
                "any amount taken is given back by the card provider's staff.",
                provider_reference=reference,
                raw=raw,
            )
        if "totalAmount" not in amounts and authorized is None:
            # Accepted, but for what amount? The answer says nothing: ask again.
            return ProviderOutcome(status="pending", provider_reference=reference, raw=raw)
        return ProviderOutcome(status="succeeded", provider_reference=reference, raw=raw)
    if not ours:
        return ProviderOutcome(status="pending", raw={"search": "nothing yet"})
    latest = ours[0]
    reason = _reason(latest)
    reference = str(latest.get("id", ""))
    decision = (
        "DECLINE" if reason in DECLINE_REASONS else "ERROR" if reason in ERROR_REASONS else ""
    )
    return table_outcome(
        secure_acceptance.CARD_DECISIONS.get(decision), reference=reference, raw=raw
    )


def _reason(summary: dict) -> str:
    info = summary.get("applicationInformation") or {}
    reason = str(info.get("reasonCode", ""))
    if reason:
        return reason
    # Older summaries carry only per-application results: rCode 1 = success.
    applications = info.get("applications") or []
    flags = {str(a.get("rCode", "")) for a in applications if isinstance(a, dict)}
    if flags == {"1"}:
        return "100"
    return ""


def _summary_raw(summary: dict) -> dict:
    return {
        "id": summary.get("id"),
        "submitTimeUtc": summary.get("submitTimeUtc"),
        "applicationInformation": summary.get("applicationInformation"),
        "orderInformation": summary.get("orderInformation"),
    }


class CyberSourceCard:
    name = "cybersource"
    required_settings = (
        "CARD_LIVE_ACCESS_KEY",
        "CARD_LIVE_PROFILE_ID",
        "CARD_LIVE_SECRET_KEY",
        "CARD_MERCHANT_ID",
        "CARD_REST_KEY_ID",
        "CARD_REST_SHARED_SECRET",
    )

    def start_payment(self, payment: CardPayment) -> CardRedirect:
        return secure_acceptance.payment_redirect(
            payment,
            access_key=settings.CARD_LIVE_ACCESS_KEY,
            profile_id=settings.CARD_LIVE_PROFILE_ID,
            secret_key=settings.CARD_LIVE_SECRET_KEY,
            payment_url=settings.CARD_PROVIDER_URL,
        )

    def verify_reply(self, fields: dict[str, str]) -> CardReply:
        return secure_acceptance.verified_reply(fields, settings.CARD_LIVE_SECRET_KEY)

    def _post(
        self, path: str, payload: dict, *, media: dict, what: str, ref: str, idempotent: bool
    ):
        """One signed POST to the REST API (HTTP Signature over host, date, target, digest), with
        the endpoint's media types (`media`: Accept and Content-Type)."""
        body = json.dumps(payload, separators=(",", ":")).encode()
        host = urlsplit(settings.CARD_REST_BASE_URL).netloc
        date = formatdate(usegmt=True)
        body_digest = digest(body)
        headers = {
            "v-c-merchant-id": settings.CARD_MERCHANT_ID,
            "Date": date,
            "Host": host,
            "Digest": body_digest,
            "Signature": signature_header(
                host=host,
                date=date,
                method="POST",
                path=path,
                body_digest=body_digest,
                merchant_id=settings.CARD_MERCHANT_ID,
            ),
            **media,
        }
        return http.send(
            "POST",
            f"{settings.CARD_REST_BASE_URL}{path}",
            what=what,
            ref=ref,
            idempotent=idempotent,
            data=body,
            headers=headers,
        )

    def _search(self, code: str, ref: str) -> list:
        """Transaction summaries whose clientReferenceInformation.code is `code`."""
        response = self._post(
            SEARCH_PATH,
            {
                "save": False,
                "name": f"status {code}",
                "timezone": "UTC",
                "query": f"clientReferenceInformation.code:{code}",
                "offset": 0,
                "limit": 50,
                "sort": "id:asc,submitTimeUtc:asc",
            },
            media=SEARCH_MEDIA,
            what="card search",
            ref=ref,
            idempotent=True,
        )
        if response.status_code not in (200, 201):
            raise ProviderError(f"card search: HTTP {response.status_code}")
        answer = http.json_body(response, "card search")
        return (answer.get("_embedded") or {}).get("transactionSummaries") or []

    def check_status(self, query: PaymentQuery) -> ProviderOutcome:
        outcome = outcome_for_summaries(self._search(query.charge_id, query.charge_id), query)
        logger.info("card search for %s: %s", query.charge_id, outcome.status)
        return outcome

    def refund(self, request: RefundRequest) -> ProviderOutcome:
        if not request.provider_reference:
            return payment_reference_unknown("card provider's id")
        try:
            response = self._post(
                REFUND_PATH.format(id=request.provider_reference),
                {
                    "clientReferenceInformation": {"code": request.refund_id},
                    "orderInformation": {
                        "amountDetails": {
                            "totalAmount": money.major_units(request.amount),
                            "currency": request.currency,
                        }
                    },
                },
                media=REFUND_MEDIA,
                what="card refund",
                ref=request.refund_id,
                idempotent=False,
            )
        except http.ProviderTimeout:
            logger.info("card refund %s: no answer in time, will search", request.refund_id)
            return ProviderOutcome(status="pending", raw={"refund": "timeout"})
        if response.status_code >= 500:
            # 502 SERVER_ERROR includes processor timeouts: the credit may exist; search later.
            raise ProviderError(f"card refund: HTTP {response.status_code}")
        if response.status_code in (401, 403):
            # Our credentials were refused. Never sent twice and never failed on that alone: the
            # refund stays pending and the search (or staff, in the Business Center) decides.
            logger.error("card refund %s: HTTP %s", request.refund_id, response.status_code)
            return ProviderOutcome(
                status="pending", check_after=600, raw={"refund": f"HTTP {response.status_code}"}
            )
        body = http.json_body(response, "card refund")
        raw = http.redact(body)
        status = str(body.get("status", "")).upper()
        logger.info(
            "card refund %s of %s: HTTP %s %s",
            request.refund_id,
            request.charge_id,
            response.status_code,
            status or "-",
        )
        if response.status_code in (200, 201) and status in ("PENDING", "TRANSMITTED", "SETTLED"):
            return ProviderOutcome(
                status="succeeded", provider_reference=str(body.get("id", "")), raw=raw
            )
        if 400 <= response.status_code < 500 or (
            response.status_code in (200, 201) and status in REFUND_REFUSED_STATUSES
        ):
            # A 201 may carry a refusal too: status DECLINED or INVALID_REQUEST, its reason in
            # errorInformation (the 201 answer of "Refund a Payment"); no credit was made.
            error = body.get("errorInformation")
            reason = str(
                body.get("reason") or (error.get("reason") if isinstance(error, dict) else "") or ""
            )
            code, message = REFUND_REFUSALS.get(
                reason, ("provider_error", "The card provider refused the refund.")
            )
            return ProviderOutcome(
                status="failed", failure_code=code, failure_message=message, raw=raw
            )
        # An answer we do not know: the credit may exist, the search will tell.
        raise ProviderError(f"card refund: HTTP {response.status_code} {status}")

    def check_refund(self, query: RefundQuery) -> ProviderOutcome:
        summaries = [
            s
            for s in self._search(query.refund_id, query.refund_id)
            if isinstance(s, dict)
            and str((s.get("clientReferenceInformation") or {}).get("code", "")) == query.refund_id
        ]
        if not summaries:
            return ProviderOutcome(
                status="pending",
                check_after=600,
                raw={"refund": "not found by the card search yet; confirm in the Business Center"},
            )
        raw = {"search": [_summary_raw(s) for s in summaries[:5]]}
        expected = money.major_units(query.amount)
        for summary in summaries:
            amounts = (summary.get("orderInformation") or {}).get("amountDetails") or {}
            if (
                _reason(summary) in ACCEPT_REASONS
                and str(amounts.get("totalAmount", expected)) == expected
            ):
                return ProviderOutcome(
                    status="succeeded", provider_reference=str(summary.get("id", "")), raw=raw
                )
        if all(_reason(s) in DECLINE_REASONS | ERROR_REASONS for s in summaries):
            return ProviderOutcome(
                status="failed",
                failure_code="provider_error",
                failure_message="The card provider refused the refund.",
                raw=raw,
            )
        return ProviderOutcome(status="pending", check_after=600, raw=raw)
