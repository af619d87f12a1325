"""Vodacom M-Pesa DRC through the M-Pesa OpenAPI (openapi.m-pesa.com, market vodacomDRC).

- Session: GET {prefix}/getSession/ with Bearer = base64(RSA PKCS#1 v1.5 encrypt(public key,
  api key)); the session id it returns is encrypted the same way for every later call. One session
  per process, kept MPESA_SESSION_LIFETIME seconds. A new session only works once it is active,
  up to 30 s after it was issued (M-Pesa's own sample sleeps 30 s), and is refused until then.
- HTTP 401 is not only a refused session. The portal's published response-code table (M-Pesa
  OpenAPI portal, openapi.m-pesa.com, "Response Codes"; the same table is reproduced in the
  public OpenAPI SDKs of its markets) gives HTTP 401 to INS-2 (invalid API key / session),
  INS-4 (user not active), INS-5 (transaction cancelled by customer) and INS-6 (transaction
  failed). So the INS code decides, never the HTTP status: a 401 carrying INS-4/5/6 is the
  payment's (or the reversal's) answer. Only a session refusal renews the session: INS-2, or a
  401 with no INS code. And only INS-2 proves nothing was processed (the gateway refused our
  credentials before the payment engine saw the request), so only then is a C2B or a reversal
  sent again (at most twice: once after waiting for a new session to become active, once with a
  renewed session). A 401 with no INS code drops the session but is not repeated: the charge or
  refund stays pending and the status query (or staff) decides. Timeouts are never repeated.
  Source of the table: the portal's "Response Codes" page, as reproduced with its HTTP statuses
  in public OpenAPI SDK documentation (e.g. the Vodacom Mozambique SDKs' READMEs); where our
  protocol notes differed (they read INS-4 as "customer cancelled"), the vendor's table ("user
  not active") was followed.
- Payment: POST {prefix}/c2bPayment/singleStage/ — synchronous: the call blocks while the customer
  enters the PIN, so it gets MPESA_TIMEOUT seconds; no answer in time is "unknown" → pending, and
  the poller asks queryTransactionStatus. input_ThirdPartyConversationID is our charge id. The
  query answers the M-Pesa transaction id (the operator reference a reversal needs) as
  output_OriginalTransactionID, as the portal's Query Transaction Status API documents it; a
  charge it settles without one is logged as a warning (the admin lists such charges).
- Refund: PUT {prefix}/reversal/ with the M-Pesa transaction id and the amount.
- Payout: POST {prefix}/b2cPayment/ (B2C) from the B2C shortcode (MPESA_B2C_SERVICE_PROVIDER_CODE),
  in the same session; input_ThirdPartyConversationID is our payout id. It answers at once (no
  customer PIN): INS-0 → succeeded with output_TransactionID, a refusal in PAYOUT_INS_CODES →
  failed, anything else (INS-1/9/10/16/23, an unknown code, a 5xx, no answer in time, a session
  refusal that persists) → pending, and queryTransactionStatus (by our payout id, with the B2C
  shortcode) decides. The body follows the portal's B2C API (input_Amount, input_Country,
  input_Currency, input_CustomerMSISDN, input_ServiceProviderCode,
  input_ThirdPartyConversationID, input_TransactionReference, input_PaymentItemsDesc).

Confirm with Vodacom before going live: the production path prefix (MPESA_PATH_PREFIX), whether CDF
is enabled (the public SDKs list DRC as USD only), the meaning of INS codes (repositories disagree
on some), the words queryTransactionStatus uses for output_ResponseTransactionStatus, the session
lifetime, its activation delay (up to 30 s) and the answer to a session not yet active (assumed:
the same 401 INS-2 as an invalid session), whether INS-4 "user not active" speaks of the customer
(assumed) or of our API user, whether INS-9 "request timeout" may still end in a payment (assumed
yes: pending, the query decides), that a bare 401 (no INS code) can only come from the gateway,
and whether reversals accept partial amounts. For payouts: that B2C is enabled for the market and
which shortcode it uses, the B2C INS codes (INS-2051/INS-2002 for an unknown recipient, INS-2006
for our own balance), whether queryTransactionStatus finds a B2C by our conversation id, and
whether a B2C can answer INS-0 and still be reversed by the operator.
Many DRC integrations use Vodacom's SOAP IPG instead; this adapter does not.
"""

import logging
import secrets
import time
from dataclasses import replace

from django.conf import settings

from core import money
from payments.providers import http
from payments.providers.base import (
    MobileMoneyPayment,
    PaymentQuery,
    PayoutQuery,
    PayoutRequest,
    PaysOut,
    ProviderError,
    ProviderOutcome,
    RefundQuery,
    RefundRequest,
    payment_reference_unknown,
    payout_unanswered,
    refund_unconfirmed,
    table_outcome,
    whole_units_only,
)
from payments.providers.rsa import encrypt

logger = logging.getLogger("payments.providers.mpesa")

COUNTRY = "DRC"

# INS code → (status, failure_code, message), after the portal's published table (see above).
# Codes not listed say nothing about the payment and leave it pending (the status query decides):
# INS-1 internal error, INS-9 request timeout (HTTP 408: the customer may still answer),
# INS-10 duplicate (a request with this id exists), INS-16 temporary overload (HTTP 503),
# INS-23 "unknown status, contact M-Pesa support", and any code not in the table. INS-2 (our
# credentials or session refused, even after renewing) is an authentication refusal: it says
# nothing about the payment, so it never fails one either.
INS_CODES: dict[str, tuple[str, str, str]] = {
    "INS-0": ("succeeded", "", ""),
    "INS-4": ("declined", "account_inactive", "The customer's M-Pesa account is not active."),
    "INS-5": ("declined", "customer_rejected", "The customer cancelled the payment."),
    "INS-6": ("failed", "provider_error", "The operator could not complete the payment."),
    "INS-13": ("failed", "provider_error", "The merchant shortcode was refused."),
    "INS-14": ("failed", "provider_error", "The payment reference was refused."),
    "INS-15": ("failed", "amount_invalid", "The operator refused the amount."),
    "INS-996": ("declined", "account_inactive", "The customer's M-Pesa account is not active."),
    "INS-2001": ("declined", "invalid_pin", "The customer could not be authenticated."),
    "INS-2006": ("declined", "insufficient_funds", "The customer's balance is too low."),
    "INS-2051": ("failed", "phone_invalid", "The operator does not know this phone number."),
}
# INS-17…INS-26: parameter, initiator and authorisation refusals (INS-26 "not authorized" is an
# HTTP 400 in the table, not a session refusal); INS-993…INS-998: direct-debit, profile, market.
for _code in [*range(17, 23), 24, 25, 26, 993, 994, 995, 997, 998, 2002, 2057]:
    INS_CODES[f"INS-{_code}"] = ("failed", "provider_error", "The operator refused the request.")
# The session refusal: the gateway refused our API key or session before processing anything.
SESSION_REFUSED = "INS-2"


# output_ResponseTransactionStatus of queryTransactionStatus.
QUERY_STATUSES: dict[str, tuple[str, str, str]] = {
    "completed": ("succeeded", "", ""),
    "successful": ("succeeded", "", ""),
    "cancelled": ("declined", "customer_rejected", "The customer cancelled the payment."),
    "canceled": ("declined", "customer_rejected", "The customer cancelled the payment."),
    "declined": ("declined", "customer_rejected", "The payment was declined."),
    "expired": ("failed", "timeout", "The customer did not answer the payment prompt in time."),
    "failed": ("failed", "provider_error", "The operator could not complete the payment."),
}


# INS code → outcome of a B2C payout, for the codes that settle it (nothing was paid when it is
# failed). As for payments, any other code leaves the payout pending and the query decides.
PAYOUT_FAILED = ("failed", "provider_error", "The operator refused the payout.")
PAYOUT_INS_CODES: dict[str, tuple[str, str, str]] = {
    code: PAYOUT_FAILED for code, (status, _, _) in INS_CODES.items() if status != "succeeded"
}
PAYOUT_INS_CODES.update(
    {
        "INS-0": ("succeeded", "", ""),
        "INS-4": ("failed", "recipient_invalid", "The recipient's M-Pesa account is not active."),
        "INS-996": ("failed", "recipient_invalid", "The recipient's M-Pesa account is not active."),
        "INS-2002": ("failed", "recipient_invalid", "The operator refused the recipient."),
        "INS-2051": ("failed", "recipient_invalid", "The operator does not know this number."),
        "INS-15": ("failed", "amount_invalid", "The operator refused the amount."),
        "INS-6": ("failed", "provider_error", "The operator could not complete the payout."),
        "INS-2006": (
            "failed",
            "provider_error",
            "The operator could not fund the payout from the B2C account.",
        ),
    }
)
# output_ResponseTransactionStatus of a B2C: anything but a completion is money not paid.
PAYOUT_QUERY_STATUSES: dict[str, tuple[str, str, str]] = {
    word: ("succeeded", "", "")
    if status == "succeeded"
    else ("failed", "provider_error", "The operator did not complete the payout.")
    for word, (status, _, _) in QUERY_STATUSES.items()
}


def outcome_for_code(
    code: str, raw: dict, reference: str = "", table: dict | None = None
) -> ProviderOutcome:
    mapped = (INS_CODES if table is None else table).get(code)
    return table_outcome(mapped, reference=reference, raw=raw)


def msisdn(phone: str) -> str:
    """+243812345678 → 243812345678."""
    return phone.lstrip("+")


def query_transaction_id(body: dict) -> str:
    """The M-Pesa transaction id a queryTransactionStatus answer states. The portal's Query
    Transaction Status API answers it as `output_OriginalTransactionID` ("The Transaction ID to
    identify the original transaction on the Mobile Money platform", sample `4C123GE3`, beside
    `output_Reversed`); `output_TransactionID`, which the C2B and B2C calls answer, is read when
    that is missing."""
    for field in ("output_OriginalTransactionID", "output_TransactionID"):
        value = body.get(field)
        if isinstance(value, str | int) and not isinstance(value, bool) and str(value).strip():
            return str(value).strip()[:100]
    return ""


def transaction_reference(charge_id: str) -> str:
    """input_TransactionReference allows about 20 characters: the random part of our id."""
    return charge_id.split("_", 1)[-1][:20]


def ins_code(response: http.Answer) -> str:
    """The INS code an answer carries ("" when it carries none or is not JSON)."""
    try:
        body = response.json()
    except ValueError:
        return ""
    return str(body.get("output_ResponseCode") or "") if isinstance(body, dict) else ""


class VodacomMpesa(PaysOut):
    name = "vodacom_mpesa"
    label = "Vodacom M-Pesa"
    operator = "M-Pesa"
    blocking = True  # the C2B call waits while the customer enters the PIN (up to MPESA_TIMEOUT)
    required_settings = ("MPESA_API_KEY", "MPESA_PUBLIC_KEY", "MPESA_SERVICE_PROVIDER_CODE")
    payout_settings = ("MPESA_API_KEY", "MPESA_PUBLIC_KEY", "MPESA_B2C_SERVICE_PROVIDER_CODE")
    payout_call = "mpesa b2c"
    payout_check_after = 30

    def _url(self, endpoint: str) -> str:
        return f"{settings.MPESA_BASE_URL}{settings.MPESA_PATH_PREFIX}/{endpoint}/"

    def _session_key(self) -> tuple:
        return ("mpesa", settings.MPESA_BASE_URL, settings.MPESA_API_KEY)

    def _fetch_session(self) -> tuple[str, float]:
        response = http.send(
            "GET",
            self._url("getSession"),
            what="mpesa session",
            ref="-",
            idempotent=True,
            headers=self._headers(settings.MPESA_API_KEY),
        )
        body = http.json_body(response, "mpesa session")
        session = body.get("output_SessionID")
        if response.status_code >= 300 or body.get("output_ResponseCode") != "INS-0" or not session:
            raise ProviderError(
                f"mpesa session: HTTP {response.status_code} {body.get('output_ResponseCode')}"
            )
        return str(session), settings.MPESA_SESSION_LIFETIME

    def _headers(self, secret: str) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {encrypt(secret, settings.MPESA_PUBLIC_KEY)}",
            "Origin": settings.MPESA_ORIGIN,
            "Content-Type": "application/json",
        }

    def _call(self, method: str, endpoint: str, **kwargs) -> http.Answer:
        """A call within our session, answered by M-Pesa (a timeout raises ProviderTimeout and
        is never repeated: the outcome is unknown).

        A session refusal (see the module docstring: 401 INS-2, or a 401 with no INS code) is
        handled here; any other answer, whatever its HTTP status, goes back to the caller, who
        reads its INS code. A call is repeated only after INS-2 (or, for an idempotent query,
        after any session refusal), which proves nothing was processed, and at most twice (one
        wait for activation, one renewal), so no call waits longer than the activation delay:
        - session younger than MPESA_SESSION_ACTIVATION: a new session is refused until it is
          active (up to 30 s), and another one would be just as new, so we wait until this one
          is old enough and call once more with it. It only happens after a (re)start or a
          renewal; C2B, reversals and the poller run in the Celery worker.
        - older: it expired or was revoked. It is dropped and a new one opened."""
        key = self._session_key()
        activation = settings.MPESA_SESSION_ACTIVATION
        idempotent = kwargs.get("idempotent", False)
        waited = renewed = False
        while True:
            session, age = http.tokens.get_with_age(key, self._fetch_session)
            response = http.send(
                method, self._url(endpoint), headers=self._headers(session), **kwargs
            )
            code = ins_code(response)
            if response.status_code != 401 or code not in ("", SESSION_REFUSED):
                return response  # the operator's answer about the request itself
            if age >= activation:
                http.tokens.forget(key, session)
            if not (idempotent or code == SESSION_REFUSED):
                return response  # may have been processed: never sent twice
            if age < activation and not waited:
                logger.info("mpesa session not active yet, waiting %.1f s", activation - age)
                time.sleep(activation - age)
                waited = True
            elif age >= activation and not renewed:
                renewed = True
            else:
                return response

    def _answer(self, response: http.Answer, what: str) -> dict:
        if response.status_code >= 500 and response.status_code != 503:
            raise ProviderError(f"{what}: HTTP {response.status_code}")
        return http.json_body(response, what)

    def request_payment(self, payment: MobileMoneyPayment) -> ProviderOutcome:
        if not money.is_whole(payment.amount):
            return whole_units_only("M-Pesa")
        try:
            response = self._call(
                "POST",
                "c2bPayment/singleStage",
                what="mpesa c2b",
                ref=payment.charge_id,
                idempotent=False,
                read_timeout=settings.MPESA_TIMEOUT,
                json={
                    "input_Amount": str(money.whole_units(payment.amount)),
                    "input_Country": COUNTRY,
                    "input_Currency": payment.currency,
                    "input_CustomerMSISDN": msisdn(payment.phone),
                    "input_ServiceProviderCode": settings.MPESA_SERVICE_PROVIDER_CODE,
                    "input_ThirdPartyConversationID": payment.charge_id,
                    "input_TransactionReference": transaction_reference(payment.charge_id),
                    "input_PurchasedItemsDesc": (payment.description or payment.charge_id)[:100],
                },
            )
        except http.ProviderTimeout:
            logger.info("mpesa c2b for %s: no answer in time, will query", payment.charge_id)
            return ProviderOutcome(status="pending", check_after=5, raw={"c2b": "timeout"})
        body = self._answer(response, "mpesa c2b")
        code = str(body.get("output_ResponseCode", ""))
        logger.info("mpesa c2b for %s: %s", payment.charge_id, code or "no code")
        return outcome_for_code(
            code, http.redact(body), str(body.get("output_TransactionID") or "")
        )

    def _query(self, reference: str, shortcode: str, statuses: dict) -> ProviderOutcome:
        """queryTransactionStatus of one of our transactions (by our conversation id), mapped
        with `statuses`; anything but INS-0 with a known status word is pending."""
        response = self._call(
            "GET",
            "queryTransactionStatus",
            what="mpesa query",
            ref=reference,
            idempotent=True,
            params={
                "input_QueryReference": reference,
                "input_ServiceProviderCode": shortcode,
                "input_ThirdPartyConversationID": f"q{transaction_reference(reference)}"
                f"{secrets.token_hex(6)}",
                "input_Country": COUNTRY,
            },
        )
        body = self._answer(response, "mpesa query")
        raw = http.redact(body)
        code = str(body.get("output_ResponseCode", ""))
        state = str(body.get("output_ResponseTransactionStatus", "")).strip().lower()
        transaction_id = query_transaction_id(body)
        logger.info("mpesa query for %s: %s %s", reference, code, state or "-")
        entry = statuses.get(state) if code == "INS-0" else None
        outcome = table_outcome(entry, reference=transaction_id, raw=raw)
        if outcome.status == "succeeded" and not transaction_id:
            logger.warning(
                "mpesa query for %s: %s without an M-Pesa transaction id "
                "(output_OriginalTransactionID): staff must find it at Vodacom to reverse it",
                reference,
                state,
            )
        return outcome

    def check_status(self, query: PaymentQuery) -> ProviderOutcome:
        if not query.payment_reference:
            return self._query(
                query.charge_id, settings.MPESA_SERVICE_PROVIDER_CODE, QUERY_STATUSES
            )
        # One payment of the charge, asked about by its M-Pesa transaction id (the query takes
        # a transaction id as input_QueryReference too): a success that names no transaction id
        # is that one's.
        outcome = self._query(
            query.payment_reference, settings.MPESA_SERVICE_PROVIDER_CODE, QUERY_STATUSES
        )
        if outcome.status == "succeeded" and not outcome.provider_reference:
            outcome = replace(outcome, provider_reference=query.payment_reference)
        return outcome

    def refund(self, request: RefundRequest) -> ProviderOutcome:
        if not money.is_whole(request.amount):
            return whole_units_only("M-Pesa")
        if not request.provider_reference:
            return payment_reference_unknown("M-Pesa transaction id")
        try:
            response = self._call(
                "PUT",
                "reversal",
                what="mpesa reversal",
                ref=request.refund_id,
                idempotent=False,
                json={
                    "input_ReversalAmount": str(money.whole_units(request.amount)),
                    "input_Country": COUNTRY,
                    "input_ServiceProviderCode": settings.MPESA_SERVICE_PROVIDER_CODE,
                    "input_ThirdPartyConversationID": request.refund_id,
                    "input_TransactionID": request.provider_reference,
                },
            )
        except http.ProviderTimeout:
            return ProviderOutcome(status="pending", raw={"reversal": "timeout"})
        body = self._answer(response, "mpesa reversal")
        code = str(body.get("output_ResponseCode", ""))
        logger.info("mpesa reversal %s of %s: %s", request.refund_id, request.charge_id, code)
        outcome = outcome_for_code(
            code, http.redact(body), str(body.get("output_TransactionID") or "")
        )
        if outcome.status == "declined":  # a refund is either done or not
            return ProviderOutcome(
                status="failed",
                failure_code=outcome.failure_code,
                failure_message=outcome.failure_message,
                raw=outcome.raw,
            )
        return outcome

    def check_refund(self, query: RefundQuery) -> ProviderOutcome:
        return refund_unconfirmed("M-Pesa", query)

    # --- payouts (B2C) ----------------------------------------------------------------------
    def _payout_ready(self) -> None:
        http.tokens.get(self._session_key(), self._fetch_session)

    def _pay_out(self, request: PayoutRequest, ready: None) -> ProviderOutcome:
        response = self._call(
            "POST",
            "b2cPayment",
            what="mpesa b2c",
            ref=request.reference,
            idempotent=False,
            json={
                "input_Amount": str(money.whole_units(request.amount)),
                "input_Country": COUNTRY,
                "input_Currency": request.currency,
                "input_CustomerMSISDN": msisdn(request.phone),
                "input_ServiceProviderCode": settings.MPESA_B2C_SERVICE_PROVIDER_CODE,
                "input_ThirdPartyConversationID": request.reference,
                "input_TransactionReference": transaction_reference(request.reference),
                "input_PaymentItemsDesc": (request.description or request.reference)[:100],
            },
        )
        body = self._answer(response, "mpesa b2c")
        code = str(body.get("output_ResponseCode", ""))
        logger.info("mpesa b2c %s: %s", request.reference, code or "no code")
        return outcome_for_code(
            code,
            http.redact(body),
            str(body.get("output_TransactionID") or ""),
            table=PAYOUT_INS_CODES,
        )

    def payout_status(self, query: PayoutQuery) -> ProviderOutcome:
        try:
            return self._query(
                query.reference, settings.MPESA_B2C_SERVICE_PROVIDER_CODE, PAYOUT_QUERY_STATUSES
            )
        except (ProviderError, ValueError) as exc:
            return payout_unanswered(str(exc))
