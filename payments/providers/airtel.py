"""Airtel Money Open API (Airtel Africa), DR Congo: USSD push collection, enquiry, full refund.

- Token: OAuth2 client credentials, POST /auth/oauth2/token; `expires_in` arrives as a string. One
  token per process, renewed shortly before it expires (and at once after a 401).
- Collection: POST /merchant/v1/payments/ with X-Country: CD and X-Currency; msisdn is the 9-digit
  national number (no 243); transaction.id is our charge id; amount in whole units. The answer
  only says the prompt is on its way (DP00800001006): the result comes from the enquiry
  GET /standard/v1/payments/{id} (TS/TF/TA/TIP/TE), prompted by Airtel's callback or the poller.
- Refund: POST /standard/v1/payments/refund with the airtel_money_id, full refunds only: the API
  refuses a partial one up front (400 `partial_refund_not_supported`, see `partial_refunds`), and
  should one reach the adapter it gets a failed outcome without calling Airtel.

Confirm with Airtel before going live: the v1 endpoints are still open to new merchants (v2 adds
x-signature/x-key message signing), the callback hash (which bytes are hashed), the response_code
table, whether USD is enabled on the merchant wallet, and whether refunds are idempotent.
"""

import logging

from django.conf import settings

from payments import money
from payments.providers import http
from payments.providers.base import (
    CallbackIncomplete,
    CallbackNotice,
    CallbackUnauthenticated,
    MobileMoneyPayment,
    PaymentQuery,
    ProviderCallback,
    ProviderError,
    ProviderOutcome,
    RefundQuery,
    RefundRequest,
    national_number,
    payment_reference_unknown,
    refund_unconfirmed,
    whole_units_only,
)

logger = logging.getLogger("payments.providers.airtel")

COUNTRY = "CD"
PENDING_CODES = {"DP00800001000", "DP00800001001", "DP00800001006"}

# response_code → (status, failure_code, message) for answers that settle the payment as not paid.
RESPONSE_CODES: dict[str, tuple[str, str, str]] = {
    "DP00800001002": ("declined", "invalid_pin", "The customer entered a wrong PIN."),
    "DP00800001003": (
        "declined",
        "limit_exceeded",
        "The payment would exceed the customer's wallet limit.",
    ),
    "DP00800001004": ("failed", "amount_invalid", "The amount is below the operator's minimum."),
    "DP00800001005": ("failed", "timeout", "The customer did not enter the PIN."),
    "DP00800001007": ("declined", "insufficient_funds", "The customer's balance is too low."),
    "DP00800001008": ("declined", "customer_rejected", "The customer refused the payment."),
    "DP00800001010": ("failed", "provider_error", "The operator does not permit this payee."),
    "DP00800001024": ("failed", "timeout", "The payment prompt timed out."),
}

ENQUIRY_STATUSES = {"TS", "TF", "TA", "TIP", "TE"}


def outcome_for_code(code: str, raw: dict, reference: str = "") -> ProviderOutcome | None:
    """The outcome a response_code settles, or None when it does not settle anything."""
    mapped = RESPONSE_CODES.get(code)
    if mapped is None:
        return None
    status, failure_code, message = mapped
    return ProviderOutcome(
        status=status,
        failure_code=failure_code,
        failure_message=message,
        provider_reference=reference,
        raw=raw,
    )


def outcome_for_enquiry(body: dict) -> ProviderOutcome:
    """Map an enquiry answer: TS → succeeded, TF → failed (refined by response_code),
    TA/TIP → pending, TE → failed(timeout); anything unreadable → pending."""
    raw = http.redact(body)
    transaction = (body.get("data") or {}).get("transaction") or {}
    status_block = body.get("status") or {}
    state = str(transaction.get("status", "")).upper()
    reference = str(transaction.get("airtel_money_id") or "")
    code = str(status_block.get("response_code", ""))
    if state == "TS":
        return ProviderOutcome(status="succeeded", provider_reference=reference, raw=raw)
    if state == "TF":
        return outcome_for_code(code, raw, reference) or ProviderOutcome(
            status="failed",
            failure_code="provider_error",
            failure_message=str(transaction.get("message") or "The operator refused the payment.")[
                :500
            ],
            provider_reference=reference,
            raw=raw,
        )
    if state == "TE":
        return ProviderOutcome(
            status="failed",
            failure_code="timeout",
            failure_message="The customer did not answer the payment prompt in time.",
            provider_reference=reference,
            raw=raw,
        )
    return ProviderOutcome(status="pending", provider_reference=reference, raw=raw)


class AirtelMoney:
    name = "airtel_money"
    label = "Airtel Money"
    blocking = False  # the collection call only says the prompt is on its way
    required_settings = ("AIRTEL_CLIENT_ID", "AIRTEL_CLIENT_SECRET")
    callback_settings = ()  # the hash key is optional: without it any callback is taken
    partial_refunds = False  # POST /standard/v1/payments/refund gives the whole payment back

    # --- plumbing ---------------------------------------------------------------------------
    def _base(self) -> str:
        return settings.AIRTEL_BASE_URL

    def _token_key(self) -> tuple:
        return ("airtel", self._base(), settings.AIRTEL_CLIENT_ID)

    def _fetch_token(self) -> tuple[str, float]:
        response = http.send(
            "POST",
            f"{self._base()}/auth/oauth2/token",
            what="airtel token",
            ref="-",
            idempotent=True,
            json={
                "client_id": settings.AIRTEL_CLIENT_ID,
                "client_secret": settings.AIRTEL_CLIENT_SECRET,
                "grant_type": "client_credentials",
            },
            headers={"Accept": "*/*"},
        )
        body = http.json_body(response, "airtel token")
        token = body.get("access_token")
        if response.status_code != 200 or not token:
            raise ProviderError(f"airtel token: HTTP {response.status_code}, no access_token")
        return str(token), http.lifetime(body.get("expires_in"), 180)

    def _call(self, method: str, path: str, *, currency: str, what: str, ref: str, **kwargs):
        return http.send_authorized(
            method,
            f"{self._base()}{path}",
            token_key=self._token_key(),
            fetch_token=self._fetch_token,
            headers=lambda token: {
                "Accept": "*/*",
                "X-Country": COUNTRY,
                "X-Currency": currency,
                "Authorization": f"Bearer {token}",
            },
            what=what,
            ref=ref,
            **kwargs,
        )

    # --- protocol ---------------------------------------------------------------------------
    def request_payment(self, payment: MobileMoneyPayment) -> ProviderOutcome:
        if not money.is_whole(payment.amount):
            return whole_units_only("Airtel Money")
        msisdn = national_number(payment.phone)
        response = self._call(
            "POST",
            "/merchant/v1/payments/",
            currency=payment.currency,
            what="airtel payment",
            ref=payment.charge_id,
            idempotent=False,
            json={
                "reference": payment.charge_id,
                "subscriber": {"country": COUNTRY, "currency": payment.currency, "msisdn": msisdn},
                "transaction": {
                    "amount": money.whole_units(payment.amount),
                    "country": COUNTRY,
                    "currency": payment.currency,
                    "id": payment.charge_id,
                },
            },
        )
        if response.status_code >= 500:
            raise ProviderError(f"airtel payment: HTTP {response.status_code}")
        if response.status_code == 401:
            # Our token was refused; the payment is never sent twice: the enquiry decides.
            return ProviderOutcome(
                status="pending", raw={"payment": f"HTTP {response.status_code}"}
            )
        body = http.json_body(response, "airtel payment")
        raw = http.redact(body)
        status_block = body.get("status") or {}
        code = str(status_block.get("response_code", ""))
        logger.info("airtel payment for %s: %s", payment.charge_id, code or "no code")
        settled = outcome_for_code(code, raw)
        if settled:
            return settled
        success = str(status_block.get("success", "")).lower() == "true"
        if response.status_code < 300 and (success or code in PENDING_CODES):
            return ProviderOutcome(status="pending", raw=raw)
        if response.status_code in (400, 409, 422):
            return ProviderOutcome(
                status="failed",
                failure_code="provider_error",
                failure_message=str(
                    status_block.get("message") or "The operator refused the payment request."
                )[:500],
                raw=raw,
            )
        # Any other answer (e.g. 2xx with an unknown code): ask again later.
        return ProviderOutcome(status="pending", raw=raw)

    def check_status(self, query: PaymentQuery) -> ProviderOutcome:
        response = self._call(
            "GET",
            f"/standard/v1/payments/{query.charge_id}",
            currency=query.currency,
            what="airtel enquiry",
            ref=query.charge_id,
            idempotent=True,
        )
        if response.status_code == 404:
            return ProviderOutcome(status="pending", raw={"enquiry": "not found"})
        if response.status_code >= 300:
            raise ProviderError(f"airtel enquiry: HTTP {response.status_code}")
        body = http.json_body(response, "airtel enquiry")
        outcome = outcome_for_enquiry(body)
        logger.info("airtel enquiry for %s: %s", query.charge_id, outcome.status)
        return outcome

    def refund(self, request: RefundRequest) -> ProviderOutcome:
        if request.amount != request.charge_amount:
            return ProviderOutcome(
                status="failed",
                failure_code="partial_refund_not_supported",
                failure_message="Airtel Money refunds the whole payment only.",
            )
        if not request.provider_reference:
            return payment_reference_unknown("Airtel Money transaction id")
        response = self._call(
            "POST",
            "/standard/v1/payments/refund",
            currency=request.currency,
            what="airtel refund",
            ref=request.refund_id,
            idempotent=False,
            json={"transaction": {"airtel_money_id": request.provider_reference}},
        )
        if response.status_code >= 500:
            raise ProviderError(f"airtel refund: HTTP {response.status_code}")
        body = http.json_body(response, "airtel refund") if response.status_code != 401 else {}
        raw = http.redact(body)
        transaction = (body.get("data") or {}).get("transaction") or {}
        state = str(transaction.get("status", "")).upper()
        logger.info("airtel refund %s of %s: %s", request.refund_id, request.charge_id, state)
        if response.status_code < 300 and state in ("SUCCESS", "TS"):
            return ProviderOutcome(
                status="succeeded",
                provider_reference=str(transaction.get("airtel_money_id") or ""),
                raw=raw,
            )
        refused = response.status_code in (400, 404, 409, 422) or state in ("TF", "FAILED")
        if not refused:
            # TIP/TA/PENDING, a refused token (401/403: never sent twice) or an answer we do not
            # know: the money may have moved; staff confirm with Airtel.
            return ProviderOutcome(status="pending", raw=raw)
        return ProviderOutcome(
            status="failed",
            failure_code="provider_error",
            failure_message=str(
                (body.get("status") or {}).get("message") or "The operator refused the refund."
            )[:500],
            raw=raw,
        )

    def check_refund(self, query: RefundQuery) -> ProviderOutcome:
        return refund_unconfirmed("Airtel Money", query)

    # --- callbacks --------------------------------------------------------------------------
    def parse_callback(self, callback: ProviderCallback) -> CallbackNotice:
        """`{"transaction": {"id": <our charge id>, …}, "hash": …}`; the hash is checked when
        AIRTEL_CALLBACK_HASH_KEY is set."""
        key = settings.AIRTEL_CALLBACK_HASH_KEY
        if key and not callback_hash_valid(callback.raw_body, callback.body, key):
            raise CallbackUnauthenticated(
                "invalid_hash", "The callback's hash is missing or wrong."
            )
        body = callback.body
        txn = body.get("transaction") if isinstance(body.get("transaction"), dict) else {}
        charge_id = str(txn.get("id") or "")
        if not charge_id:
            raise CallbackIncomplete("transaction[id]")
        return CallbackNotice(charge_id=charge_id)


def callback_hash_valid(raw_body: bytes, body: dict, key: str) -> bool:
    """Airtel's optional callback authentication: base64(HMAC-SHA256(key, message)) sent as `hash`
    beside `transaction`. Which bytes are hashed is not settled by the public documentation, so
    both readings seen in integrations are accepted: the compact JSON of the `transaction` object
    (keys in the order received) and the raw body without its `hash` member. A callback only ever
    triggers an enquiry, so a lenient reading cannot credit a payment."""
    import base64
    import hashlib
    import hmac
    import json

    received = body.get("hash")
    if not isinstance(received, str) or not received:
        return False
    candidates = [
        json.dumps(body.get("transaction"), separators=(",", ":"), ensure_ascii=False),
        json.dumps(
            {k: v for k, v in body.items() if k != "hash"},
            separators=(",", ":"),
            ensure_ascii=False,
        ),
        raw_body.decode("utf-8", "replace"),
    ]
    for message in candidates:
        digest = hmac.new(key.encode(), message.encode("utf-8"), hashlib.sha256).digest()
        if hmac.compare_digest(base64.b64encode(digest).decode(), received):
            return True
    return False
