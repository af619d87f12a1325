"""Airtel Money Open API (Airtel Africa), DR Congo: USSD push collection, enquiry, full refund.

- Token: OAuth2 client credentials, POST /auth/oauth2/token; `expires_in` arrives as a string. One
  token per process, renewed shortly before it expires (and at once after a 401).
- Collection: POST /merchant/v1/payments/ with X-Country: CD and X-Currency; msisdn is the 9-digit
  national number (no 243); transaction.id is our charge id; `reference` is the charge id without
  its underscore (`ch_Ab…` → `chAb…`, 26 letters and digits: Airtel's integrations ask for 4–64
  alphanumeric characters, and our ids are otherwise letters and digits only, so
  `charge_id_for_reference` gives the charge back); amount in whole units. The answer
  only says the prompt is on its way (DP00800001006): the result comes from the enquiry
  GET /standard/v1/payments/{id} (TS/TF/TA/TIP/TE), prompted by Airtel's callback or the poller.
- Refund: POST /standard/v1/payments/refund with the airtel_money_id, full refunds only: the API
  refuses a partial one up front (400 `partial_refund_not_supported`, see `partial_refunds`), and
  should one reach the adapter it gets a failed outcome without calling Airtel.
- Payout (disbursement): POST /standard/v1/disbursements/ with `payee.msisdn` (9 digits, no 243),
  `reference`, `pin` and `transaction.{amount, id}` (id = our payout id), the same X-Country and
  X-Currency headers; `pin` is the disbursement wallet's PIN encrypted with Airtel's RSA public
  key (PKCS#1 v1.5, base64; the key Airtel's documentation gives, 1024-bit for v1). Airtel often
  answers a refusal with HTTP 200 and `status.success` false: the DP009… `response_code` decides
  (DISBURSEMENT_CODES), anything else leaves the payout pending. Status: the enquiry
  GET /standard/v1/disbursements/{our payout id} (TS/TF/TA/TIP, refined by the response code).
  Sources of the request shape and the PIN encryption (public SDKs, as Airtel's own pages are
  behind a developer login): the `airtel-pesa` gem (github.com/Sylvance/airtel-pesa,
  lib/airtel/pesa/disbursement_payment.rb, encryption_pin.rb: OpenSSL `public_encrypt`, whose
  default padding is PKCS#1 v1.5, then base64; disbursement_transaction_enquiry.rb) and the 121
  platform (github.com/global-121/121-platform, services/121-service/src/payments/
  fsp-integration/airtel: `encryptPinV1` with RSA_PKCS1_PADDING, the v1 disbursement sample,
  the response codes it maps, and its Airtel mock answering refusals with HTTP 200 and
  DP00900001013). The DP009 meanings follow the response-code table reproduced in public
  clients (e.g. PyPI `airtelmoney-ug`).

Callbacks are authenticated, always: live Airtel does not start without AIRTEL_CALLBACK_HASH_KEY
(config/settings/providers.py, `start_settings`), and a callback without a valid `hash` is refused (401),
whatever the settings.
Airtel's own documentation (Collection API, "Callback Authentication": "hash the callback request
with the private key shown in application setting using HmacSHA256 algorithm, with output text
format in Base64"; steps: enable callback authentication, then "Copy Private key") says the key is
a private key of its own, shown in the application's settings once callback authentication is
enabled: that is AIRTEL_CALLBACK_HASH_KEY. Some public clients key the hash with the application's
client secret instead (airtelmoney-py, github.com/robin-001/airtelmoney-py,
src/airtelmoney/resources/collection.py, `verify_callback_hash`): a hash made with
AIRTEL_CLIENT_SECRET is accepted too, a secret only Airtel and we hold.

Confirm with Airtel before going live: the v1 endpoints are still open to new merchants (v2 adds
x-signature/x-key message signing), the callback hash (which bytes are hashed, and whether
non-ASCII characters are escaped first; both are accepted; and which key: both are accepted), the
collection `reference` rules (we send 26 letters and digits), the response_code
table, whether USD is enabled on the merchant wallet, and whether refunds are idempotent. For
payouts: that v1 disbursements are enabled for CD (v2 signs messages and encrypts the PIN with
RSA-OAEP under a key fetched from /v1/rsa/encryption-keys), the PIN public key for CD, whether
`payee.wallet_type` and `transaction.type` (B2C) are required, the `reference` rules (we send our
payout id without its underscore: some integrations report 4–64 alphanumeric characters), the
DP009 code table and which codes are final, the enquiry's answer for an unknown id and for a
payout still in progress, and whether a disbursement can still end in TF after TS.
"""

import base64
import hashlib
import hmac
import json
import logging

from django.conf import settings

from core import money
from core.ids import looks_like_id
from payments.providers import http
from payments.providers.base import (
    CallbackIncomplete,
    CallbackNotice,
    CallbackUnauthenticated,
    MobileMoneyPayment,
    PaymentQuery,
    PayoutQuery,
    PayoutRequest,
    PaysOut,
    ProviderCallback,
    ProviderError,
    ProviderOutcome,
    RefundQuery,
    RefundRequest,
    national_number,
    payment_reference_unknown,
    payout_unanswered,
    refund_unconfirmed,
    table_outcome,
    whole_units_only,
)
from payments.providers.rsa import encrypt

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

# Disbursement response_code → outcome, for the codes that settle a payout. Not listed, so pending
# (the enquiry decides): DP00900001000 ambiguous, -006 in process, -011 "similar transaction
# exists", -014 timed out ("may be processed or failed"), -015 not found, -016 signature mismatch,
# -017 duplicate id, and any code we do not know.
DISBURSEMENT_CODES: dict[str, tuple[str, str, str]] = {
    "DP00900001001": ("succeeded", "", ""),
    "DP00900001003": (
        "failed",
        "limit_exceeded",
        "The operator's daily payout limit has been reached.",
    ),
    "DP00900001004": (
        "failed",
        "amount_invalid",
        "The amount is outside the operator's payout limits.",
    ),
    "DP00900001005": ("failed", "provider_error", "The operator could not complete the payout."),
    "DP00900001007": (
        "failed",
        "provider_error",
        "The operator could not fund the payout from the disbursement wallet.",
    ),
    "DP00900001009": ("failed", "provider_error", "The operator refused the payout's initiator."),
    "DP00900001010": ("failed", "provider_error", "The operator does not allow this payer."),
    "DP00900001012": (
        "failed",
        "recipient_invalid",
        "The operator does not know this mobile number.",
    ),
    "DP00900001013": ("failed", "provider_error", "The operator refused the payout."),
}
PAYOUT_FAILED = ("failed", "provider_error", "The operator could not complete the payout.")


def outcome_for_code(code: str, raw: dict, reference: str = "") -> ProviderOutcome | None:
    """The outcome a response_code settles, or None when it does not settle anything."""
    mapped = RESPONSE_CODES.get(code)
    if mapped is None:
        return None
    return table_outcome(mapped, reference=reference, raw=raw)


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


class AirtelMoney(PaysOut):
    name = "airtel_money"
    label = operator = "Airtel Money"
    blocking = False  # the collection call only says the prompt is on its way
    required_settings = ("AIRTEL_CLIENT_ID", "AIRTEL_CLIENT_SECRET")
    payout_settings = (
        *required_settings,
        "AIRTEL_DISBURSEMENT_PIN",
        "AIRTEL_DISBURSEMENT_PUBLIC_KEY",
    )
    payout_call = "airtel disbursement"
    # Every callback needs a hash made with one of Airtel's keys (parse_callback): none is taken
    # on its word. Live Airtel does not start without the callback key
    # (config/settings/providers.py).
    callback_settings = ()
    start_settings = ("AIRTEL_CALLBACK_HASH_KEY",)
    partial_refunds = False  # POST /standard/v1/payments/refund gives the whole payment back

    # --- plumbing ---------------------------------------------------------------------------
    def _base(self) -> str:
        return settings.AIRTEL_BASE_URL

    def _token_key(self) -> tuple:
        return ("airtel", self._base(), settings.AIRTEL_CLIENT_ID)

    def _fetch_token(self) -> tuple[str, float]:
        return http.client_credentials_token(
            f"{self._base()}/auth/oauth2/token",
            what="airtel token",
            default_lifetime=180,
            json={
                "client_id": settings.AIRTEL_CLIENT_ID,
                "client_secret": settings.AIRTEL_CLIENT_SECRET,
                "grant_type": "client_credentials",
            },
            headers={"Accept": "*/*"},
        )

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
                "reference": collection_reference(payment.charge_id),
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
        # The enquiry takes our transaction id only (no enquiry by airtel_money_id is published):
        # a second payment reported for the charge (query.payment_reference) is confirmed when
        # the answer about our transaction names it.
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

    # --- payouts (disbursements) ------------------------------------------------------------
    def _payout_ready(self) -> str:
        """The PIN encrypted with Airtel's key, once a token is had."""
        pin = encrypt(settings.AIRTEL_DISBURSEMENT_PIN, settings.AIRTEL_DISBURSEMENT_PUBLIC_KEY)
        http.tokens.get(self._token_key(), self._fetch_token)
        return pin

    def _pay_out(self, request: PayoutRequest, pin: str) -> ProviderOutcome:
        response = self._call(
            "POST",
            "/standard/v1/disbursements/",
            currency=request.currency,
            what="airtel disbursement",
            ref=request.reference,
            idempotent=False,
            json={
                "payee": {"msisdn": national_number(request.phone)},
                "reference": disbursement_reference(request.reference),
                "pin": pin,
                "transaction": {
                    "amount": money.whole_units(request.amount),
                    "id": request.reference,
                },
            },
        )
        return outcome_for_disbursement(response)

    def payout_status(self, query: PayoutQuery) -> ProviderOutcome:
        try:
            response = self._call(
                "GET",
                f"/standard/v1/disbursements/{query.reference}",
                currency=query.currency,
                what="airtel disbursement enquiry",
                ref=query.reference,
                idempotent=True,
            )
        except ProviderError as exc:
            return payout_unanswered(str(exc))
        if response.status_code == 404:
            # No record (yet): failing it would be a guess, and a paid payout could be paid twice.
            return payout_unanswered("Airtel has no record of this disbursement", check_after=300)
        outcome = outcome_for_disbursement(response, enquiry=True)
        logger.info("airtel disbursement enquiry %s: %s", query.reference, outcome.status)
        return outcome

    # --- callbacks --------------------------------------------------------------------------
    def parse_callback(self, callback: ProviderCallback) -> CallbackNotice:
        """`{"transaction": {"id": <our charge id>, "status_code": "TS|TF", "airtel_money_id":
        …}, "hash": …}`: refused unless its hash is made with AIRTEL_CALLBACK_HASH_KEY (or the
        client secret, see the module's docstring). The airtel_money_id of a payment Airtel
        reports as made (TS) is the notice's operator reference, as the enquiry's answer gives
        it: kept on a charge that has none, and, on a charge that succeeded under another one, a
        second payment to check with Airtel. A failed transaction's id names no payment."""
        keys = [settings.AIRTEL_CALLBACK_HASH_KEY, settings.AIRTEL_CLIENT_SECRET]
        if not callback_hash_valid(
            callback.raw_body, callback.body, [key for key in keys if key], callback.headers
        ):
            raise CallbackUnauthenticated(
                "invalid_hash", "The callback's hash is missing or wrong."
            )
        body = callback.body
        txn = body.get("transaction") if isinstance(body.get("transaction"), dict) else {}
        charge_id = str(txn.get("id") or "")
        if not charge_id:
            raise CallbackIncomplete("transaction[id]")
        paid = str(txn.get("status_code") or "").upper() == "TS"
        reference = str(txn.get("airtel_money_id") or "") if paid else ""
        return CallbackNotice(charge_id=charge_id, provider_reference=reference)


def collection_reference(charge_id: str) -> str:
    """`reference` of a collection: our charge id without its underscore (`ch_Ab12…` →
    `chAb12…`), 26 letters and digits, which Airtel's integrations require (4–64 alphanumerics)."""
    return charge_id.replace("_", "")


def charge_id_for_reference(reference: str) -> str:
    """The charge a collection `reference` names (the inverse of collection_reference), or "" when
    it is not one of ours. Our ids are a lowercase prefix, `_` and 24 letters and digits, so the
    underscore goes back before the last 24 characters."""
    charge_id = f"{reference[:-24]}_{reference[-24:]}"
    return charge_id if looks_like_id(charge_id) and charge_id.startswith("ch_") else ""


def disbursement_reference(payout_id: str) -> str:
    """`reference` of a disbursement: our payout id without its separator (alphanumeric)."""
    return "".join(c for c in payout_id if c.isalnum())[:64]


def outcome_for_disbursement(response, enquiry: bool = False) -> ProviderOutcome:
    """Airtel's answer to a disbursement or to its enquiry. The enquiry's TS/TF/TA/TIP decides
    (TF refined by the response code); otherwise a known DP009 code does (Airtel answers refusals
    with HTTP 200 too), and a refusal of the request itself (HTTP 400 or 422 without a code) is
    failed: nothing was processed. Everything else — a 5xx, a refused token (401/403), an unknown
    code or state, a body that is not JSON — says nothing about the money: pending."""
    what = "disbursement enquiry" if enquiry else "disbursement"
    status = response.status_code
    if status >= 500 or status in (401, 403):
        return payout_unanswered(f"HTTP {status}", check_after=60)
    try:
        body = http.json_body(response, f"airtel {what}")
    except ProviderError:
        return payout_unanswered(f"HTTP {status}, not JSON", check_after=60)
    raw = http.redact(body)
    status_block = body.get("status") if isinstance(body.get("status"), dict) else {}
    data = body.get("data") if isinstance(body.get("data"), dict) else {}
    transaction = data.get("transaction") if isinstance(data.get("transaction"), dict) else {}
    code = str(status_block.get("response_code") or "")
    state = str(transaction.get("status") or "").upper() if enquiry else ""
    reference = str(transaction.get("airtel_money_id") or transaction.get("reference_id") or "")
    mapped = DISBURSEMENT_CODES.get(code)
    if state in ("TS", "TF", "TA", "TIP"):
        if state == "TS":
            mapped = DISBURSEMENT_CODES["DP00900001001"]
        elif state == "TF":
            mapped = mapped if mapped and mapped[0] == "failed" else PAYOUT_FAILED
        else:
            mapped = None
    elif mapped is None and status in (400, 422) and not code:
        message = str(status_block.get("message") or "The operator refused the payout request.")
        mapped = ("failed", "provider_error", message[:500])
    return table_outcome(mapped, reference=reference, raw=raw)


def callback_hash_valid(raw_body: bytes, body: dict, keys: list[str], headers=None) -> bool:
    """Airtel's callback authentication: base64(HMAC-SHA256(key, message)), sent as `hash` beside
    `transaction` (as integrations read it) or as a `hash` header (as a copy of Airtel's Chad
    documentation reads it), with one of `keys`. Which bytes are hashed is not settled by the
    public documentation, so the readings seen in integrations are accepted: the compact JSON of
    the `transaction` object (keys in the order received), the same of the body without its
    `hash` member, and the raw body. Each compact JSON is read twice: with non-ASCII characters as
    they are (UTF-8) and with them escaped (`\u00e9`), which is what public SDKs compute —
    Python's json.dumps default, as in airtelmoney-py's `verify_callback_hash` — so a message
    holding accents ("Paiement réussi") verifies either way. Every reading needs one of the keys,
    and a callback only ever triggers an enquiry, so a lenient reading cannot credit a payment."""
    received = body.get("hash") or (headers or {}).get("hash")
    if not isinstance(received, str) or not received or not keys:
        return False
    signed_parts = (body.get("transaction"), {k: v for k, v in body.items() if k != "hash"})
    candidates = [
        json.dumps(part, separators=(",", ":"), ensure_ascii=ascii_only)
        for part in signed_parts
        for ascii_only in (False, True)
    ]
    candidates.append(raw_body.decode("utf-8", "replace"))
    for key in keys:
        for message in candidates:
            digest = hmac.new(key.encode(), message.encode("utf-8"), hashlib.sha256).digest()
            if hmac.compare_digest(base64.b64encode(digest).decode(), received):
                return True
    return False
