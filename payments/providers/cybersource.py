"""Live card payments: CyberSource Secure Acceptance Hosted Checkout + the Transaction Search API.

- start_payment: the signed form of secure_acceptance.build_request with the live access key,
  profile and secret; the customer's browser posts it to CARD_PROVIDER_URL.
- verify_reply: the reply the browser brings back (and the Merchant POST) is verified with the same
  secret (secure_acceptance.verify).
- check_status: POST /tss/v2/searches on CARD_REST_BASE_URL for clientReferenceInformation.code =
  our charge id (Secure Acceptance's reference_number), authenticated with an HTTP Signature
  (v-c-merchant-id, Date, Host, Digest, HmacSHA256 with the base64-decoded shared secret). Search
  results lag by seconds to minutes: nothing found → pending.
- refund: the REST refund API is not described in the material this adapter was built from, so a
  refund answers a failed outcome `refund_not_supported` (refund from the CyberSource Business
  Center). Adding POST /pts/v2/payments/{id}/refunds is the next step once confirmed.

Confirm with CyberSource before going live: that reference_number is searchable as
clientReferenceInformation.code for Secure Acceptance payments, the fields of a transaction
summary used below (applicationInformation.reasonCode / rCode / applications, orderInformation
.amountDetails), and the receipt/cancel override fields being enabled on the profile.
"""

import base64
import hashlib
import hmac
import json
import logging
from email.utils import formatdate
from urllib.parse import urlsplit

from django.conf import settings

from payments.providers import http, secure_acceptance
from payments.providers.base import (
    CardPayment,
    CardRedirect,
    CardReply,
    PaymentQuery,
    ProviderError,
    ProviderOutcome,
    RefundsMadeInPortal,
)

logger = logging.getLogger("payments.providers.cybersource")

SEARCH_PATH = "/tss/v2/searches"
SIGNED_HEADERS = "host date (request-target) digest v-c-merchant-id"

ACCEPT_REASONS = {"100", "110"}
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
            f"(request-target): {method.lower()} {path}",
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
    """The result of our payment among the search results (newest first wins, success wins)."""
    ours = [
        s
        for s in summaries
        if isinstance(s, dict)
        and str((s.get("clientReferenceInformation") or {}).get("code", "")) == query.charge_id
    ]
    ours.sort(key=lambda s: str(s.get("submitTimeUtc", "")), reverse=True)
    raw = {"search": [_summary_raw(s) for s in ours[:5]]}
    expected_amount = secure_acceptance.major_units(query.amount)
    for summary in ours:
        reason = _reason(summary)
        if reason in ACCEPT_REASONS:
            amounts = (summary.get("orderInformation") or {}).get("amountDetails") or {}
            if (
                str(amounts.get("totalAmount", expected_amount)) != expected_amount
                or str(amounts.get("currency", query.currency)).upper() != query.currency
            ):
                logger.error("card search for %s: amount or currency differs", query.charge_id)
                continue
            return ProviderOutcome(
                status="succeeded", provider_reference=str(summary.get("id", "")), raw=raw
            )
    if not ours:
        return ProviderOutcome(status="pending", raw={"search": "nothing yet"})
    latest = ours[0]
    reason = _reason(latest)
    reference = str(latest.get("id", ""))
    if reason in DECLINE_REASONS:
        return ProviderOutcome(
            status="declined",
            failure_code="card_declined",
            failure_message="The card was declined.",
            provider_reference=reference,
            raw=raw,
        )
    if reason in ERROR_REASONS:
        return ProviderOutcome(
            status="failed",
            failure_code="processing_error",
            failure_message="The card payment could not be processed.",
            provider_reference=reference,
            raw=raw,
        )
    return ProviderOutcome(status="pending", provider_reference=reference, raw=raw)


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


class CyberSourceCard(RefundsMadeInPortal):
    refund_portal_message = "Card refunds are made from the CyberSource Business Center for now."
    name = "cybersource"

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

    def check_status(self, query: PaymentQuery) -> ProviderOutcome:
        body = json.dumps(
            {
                "save": False,
                "name": f"status {query.charge_id}",
                "timezone": "UTC",
                "query": f"clientReferenceInformation.code:{query.charge_id}",
                "offset": 0,
                "limit": 50,
                "sort": "id:asc,submitTimeUtc:asc",
            },
            separators=(",", ":"),
        ).encode()
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
                path=SEARCH_PATH,
                body_digest=body_digest,
                merchant_id=settings.CARD_MERCHANT_ID,
            ),
            "Content-Type": "application/json",
            "Accept": "application/hal+json;charset=utf-8",
        }
        response = http.send(
            "POST",
            f"{settings.CARD_REST_BASE_URL}{SEARCH_PATH}",
            what="card search",
            ref=query.charge_id,
            idempotent=True,
            data=body,
            headers=headers,
        )
        if response.status_code not in (200, 201):
            raise ProviderError(f"card search: HTTP {response.status_code}")
        answer = http.json_body(response, "card search")
        summaries = (answer.get("_embedded") or {}).get("transactionSummaries") or []
        outcome = outcome_for_summaries(summaries, query)
        logger.info("card search for %s: %s", query.charge_id, outcome.status)
        return outcome
