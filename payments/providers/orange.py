"""Orange Money DR Congo through the Orange Money B2B RDC API ("cashout": the customer pays us;
"cashin": we pay the customer, which is how a refund is made).

Why this option: a charge here is a prompt on the customer's phone, answered there, with the
result coming back to us — which is what the B2B cashout does (the customer confirms on the handset
and Orange calls back). The other public option, Orange Money Web Payment, redirects the customer
to an Orange web page (a card-like flow our mobile money charges do not have), and there is no proof
that `cd` is an enabled Web Payment country (a DRC integrator reports being told to stop using it).

What this adapter does:
- Token: POST /oauth/v3/token with Basic auth (client id:secret), form grant_type=client_credentials;
  one token per process, renewed shortly before it expires (and at once after a 401).
- Payment: POST /orange-money-b2b/v1/cd/transactions/cashout with peerId (9-digit national number,
  no 243), peerIdType msisdn, amount in whole units, currency, posId, transactionId (our charge id).
  Orange answers 202 PENDING; the result comes by callback and by status query.
- Status: GET /orange-money-b2b/v1/cd/transactions/{our charge id}. The callback (authenticated by
  ORANGE_NOTIF_TOKEN, see parse_callback) only ever triggers this query.
- Refund: POST /orange-money-b2b/v1/cd/transactions/cashin, the same body as the cashout, paying the
  refund (whole units) to the phone that paid the charge, transactionId = our refund id. Sent once
  (no retry): 2xx → as the body says (PENDING/SUCCESS/FAILED); a 4xx refusal → failed (nothing was
  paid); 409 (this id is known), 5xx or no answer in time → pending, the refund status query
  decides. A token that cannot be had means no cashin was sent: failed, the merchant may retry.
- Refund status: GET /orange-money-b2b/v1/cd/transactions/{our refund id} (the path assumed for
  payments). No record there keeps the refund pending for staff, never failed: the path is a guess,
  and failing would free money that may already have been paid back.
- Payout: a cashin too, of the payout (whole units) to the recipient, transactionId = our payout
  id, offered only once ORANGE_PAYOUTS_ENABLED says Orange enabled cashin for it. Sent once: 2xx →
  as the body says; a 4xx refusal with Orange's error code (e.g. cashin not allowed) → failed; 409,
  401, a bare 403, a 5xx, no answer in time, a body that is not JSON → pending. Status:
  GET …/transactions/{our payout id}; no record there, or no answer, keeps it pending.

Doubts, to settle with Orange before going live (public material is thin, confidence low): the exact
status path (assumed above, for cashouts and cashins alike) and its answer shape
(`transactionStatus` SUCCESS/FAILED/PENDING as in the callback), the callback's authentication (no
per-payment notif_token exists in this API: we expect the token we chose, ORANGE_NOTIF_TOKEN, in the
callback URL registered at subscription as `?notif_token=…` or in the body), the errorCode table,
USD support, the 500–500,000 CDF limits reported by an integrator; for refunds: whether cashin is
enabled on our merchant account at all (one integrator reports it needs a licence), whether a
cashin answers PENDING or SUCCESS, whether the cashin callback reaches the same URL, and whether
Orange limits cashins per customer (our partial refunds are independent cashins; nothing at Orange
ties them to the original cashout, so only our own refund rules stop an over-refund). For payouts:
whether cashin may pay any Orange Money customer (not only one who paid us), its per-customer and
daily limits, whether an unknown or barred recipient is refused up front (which error code) or
reported FAILED later, and the callback of a payout's cashin.
"""

import hmac
import logging

import requests
from django.conf import settings

from payments import money
from payments.providers import http
from payments.providers.base import (
    CallbackIncomplete,
    CallbackNotice,
    CallbackUnauthenticated,
    MobileMoneyPayment,
    PaymentQuery,
    PayoutNotSent,
    PayoutQuery,
    PayoutRequest,
    ProviderCallback,
    ProviderError,
    ProviderOutcome,
    RefundQuery,
    RefundRequest,
    national_number,
    payout_unanswered,
    payouts_unavailable,
    whole_units_only,
)

logger = logging.getLogger("payments.providers.orange")

API = "/orange-money-b2b/v1/cd/transactions"
WHOLE_UNITS_ONLY = whole_units_only("Orange Money")
# A refund Orange has no record of (the assumed status path): asked again hourly, for staff to see.
UNCONFIRMED_CHECK_AFTER = 3600


def outcome_for_status(body: dict, subject: str = "payment") -> ProviderOutcome:
    """transactionStatus SUCCESS → succeeded, FAILED → failed, anything else → pending."""
    data = body.get("transactionData") if isinstance(body.get("transactionData"), dict) else body
    state = str(
        data.get("transactionStatus") or body.get("transactionStatus") or body.get("status") or ""
    ).upper()
    reference = str(data.get("txnId") or data.get("transactionId") or "")
    raw = http.redact(body)
    if state in ("SUCCESS", "SUCCESSFUL"):
        return ProviderOutcome(status="succeeded", provider_reference=reference, raw=raw)
    if state in ("FAILED", "FAILURE", "REJECTED", "EXPIRED", "CANCELLED"):
        error = str(data.get("errorCode") or body.get("errorCode") or "")
        return ProviderOutcome(
            status="failed",
            failure_code="timeout" if state == "EXPIRED" else "provider_error",
            failure_message=f"Orange Money did not complete the {subject}"
            f"{f' ({error})' if error else ''}.",
            provider_reference=reference,
            raw=raw,
        )
    return ProviderOutcome(status="pending", provider_reference=reference, raw=raw)


def _lenient_body(response: requests.Response) -> dict:
    """A refusal's body as kept for staff: its JSON object, or the start of its text."""
    try:
        body = response.json()
    except ValueError:
        return {"body": response.text[:200]}
    return body if isinstance(body, dict) else {"body": body}


def _error_code(body: dict) -> str:
    """Orange's own code of a refusal (`code`, `errorCode` or `error.code`), if it looks like one."""
    error = body.get("error") if isinstance(body.get("error"), dict) else {}
    code = str(body.get("errorCode") or body.get("code") or error.get("code") or "")
    return code if code.replace("_", "").replace("-", "").isalnum() and len(code) <= 40 else ""


def _cashin_outcome(response: requests.Response, subject: str) -> ProviderOutcome:
    """Orange's answer (not a 5xx) to a cashin paying a refund or a payout. ProviderError when a
    2xx body is not JSON."""
    status = response.status_code
    if status < 300:
        return outcome_for_status(http.json_body(response, "orange cashin"), subject)
    body = http.redact(_lenient_body(response))
    code = _error_code(body)
    if status in (401, 409) or (status == 403 and not code):
        # 409: this transactionId is already known to Orange; 401 or a bare 403: our token
        # was refused (a cashin is never sent twice). The status query (or staff) decides.
        return ProviderOutcome(status="pending", raw=body)
    return ProviderOutcome(
        status="failed",
        failure_code="provider_error",
        failure_message=f"Orange Money refused the {subject} (HTTP {status}"
        f"{f', {code}' if code else ''}): cashin (paying a customer) may not be enabled on "
        "this merchant account.",
        raw=body,
    )


class OrangeMoney:
    name = "orange_money"
    label = "Orange Money"
    blocking = False  # Orange answers 202 PENDING at once; the customer confirms afterwards
    required_settings = ("ORANGE_CLIENT_ID", "ORANGE_CLIENT_SECRET", "ORANGE_POS_ID")
    callback_settings = ("ORANGE_NOTIF_TOKEN",)  # the only proof a callback comes from Orange

    def _base(self) -> str:
        return settings.ORANGE_BASE_URL

    def _token_key(self) -> tuple:
        return ("orange", self._base(), settings.ORANGE_CLIENT_ID)

    def _fetch_token(self) -> tuple[str, float]:
        response = http.send(
            "POST",
            f"{self._base()}/oauth/v3/token",
            what="orange token",
            ref="-",
            idempotent=True,
            auth=(settings.ORANGE_CLIENT_ID, settings.ORANGE_CLIENT_SECRET),
            data={"grant_type": "client_credentials"},
            headers={"Accept": "application/json"},
        )
        body = http.json_body(response, "orange token")
        token = body.get("access_token")
        if response.status_code != 200 or not token:
            raise ProviderError(f"orange token: HTTP {response.status_code}, no access_token")
        return str(token), http.lifetime(body.get("expires_in"), 3600)

    def _call(self, method: str, path: str, **kwargs):
        return http.send_authorized(
            method,
            f"{self._base()}{path}",
            token_key=self._token_key(),
            fetch_token=self._fetch_token,
            headers=lambda token: {
                "Authorization": f"Bearer {token}",
                "Accept": "application/json",
            },
            **kwargs,
        )

    def _send(
        self, service: str, *, transaction_id: str, phone: str, amount: int, currency: str
    ) -> requests.Response:
        """A cashout (the customer pays us) or a cashin (we pay the customer): never retried."""
        return self._call(
            "POST",
            f"{API}/{service}",
            what=f"orange {service}",
            ref=transaction_id,
            idempotent=False,
            json={
                "peerId": national_number(phone),
                "peerIdType": "msisdn",
                "amount": money.whole_units(amount),
                "currency": currency,
                "posId": settings.ORANGE_POS_ID,
                "transactionId": transaction_id,
            },
        )

    def _status(self, transaction_id: str, what: str, subject: str) -> ProviderOutcome | None:
        """Orange's status of one of our transactions, or None when it has no record of it."""
        response = self._call(
            "GET", f"{API}/{transaction_id}", what=what, ref=transaction_id, idempotent=True
        )
        if response.status_code == 404:
            return None
        if response.status_code >= 300:
            raise ProviderError(f"{what}: HTTP {response.status_code}")
        outcome = outcome_for_status(http.json_body(response, what), subject)
        logger.info("%s for %s: %s", what, transaction_id, outcome.status)
        return outcome

    def request_payment(self, payment: MobileMoneyPayment) -> ProviderOutcome:
        if not money.is_whole(payment.amount):
            return WHOLE_UNITS_ONLY
        response = self._send(
            "cashout",
            transaction_id=payment.charge_id,
            phone=payment.phone,
            amount=payment.amount,
            currency=payment.currency,
        )
        if response.status_code >= 500:
            raise ProviderError(f"orange cashout: HTTP {response.status_code}")
        if response.status_code == 401 or (
            response.status_code == 403 and not _error_code(_lenient_body(response))
        ):
            # Our token was refused; a cashout is never sent twice: the status query decides.
            return ProviderOutcome(
                status="pending", raw={"cashout": f"HTTP {response.status_code}"}
            )
        body = http.json_body(response, "orange cashout")
        logger.info("orange cashout for %s: HTTP %s", payment.charge_id, response.status_code)
        if response.status_code < 300:
            return outcome_for_status(body)
        if response.status_code == 409:
            # This transactionId is already known to Orange: the status query tells the rest.
            return ProviderOutcome(status="pending", raw=http.redact(body))
        return ProviderOutcome(
            status="failed",
            failure_code="provider_error",
            failure_message=str(
                body.get("message")
                or body.get("description")
                or "Orange Money refused the payment."
            )[:500],
            raw=http.redact(body),
        )

    def check_status(self, query: PaymentQuery) -> ProviderOutcome:
        outcome = self._status(query.charge_id, "orange status", "payment")
        return outcome or ProviderOutcome(status="pending", raw={"status": "not found"})

    def refund(self, request: RefundRequest) -> ProviderOutcome:
        """A cashin of the refund to the phone that paid the charge (sent once, never retried)."""
        if not money.is_whole(request.amount):
            return WHOLE_UNITS_ONLY
        try:
            http.tokens.get(self._token_key(), self._fetch_token)
        except ProviderError as exc:
            # No token, so no cashin was sent: nothing can have been paid.
            logger.warning("orange cashin %s: no token (%s), not sent", request.refund_id, exc)
            return ProviderOutcome(
                status="failed",
                failure_code="provider_error",
                failure_message="Orange Money could not be reached; the refund was not sent. "
                "Try again later.",
                raw={"cashin": "not sent", "error": str(exc)},
            )
        try:
            response = self._send(
                "cashin",
                transaction_id=request.refund_id,
                phone=request.phone,
                amount=request.amount,
                currency=request.currency,
            )
        except http.ProviderTimeout:
            # Orange may have paid: only the status query may settle it.
            logger.warning("orange cashin %s: no answer in time, will query", request.refund_id)
            return ProviderOutcome(status="pending", raw={"cashin": "timeout"})
        status = response.status_code
        logger.info("orange cashin %s of %s: HTTP %s", request.refund_id, request.charge_id, status)
        if status >= 500:
            raise ProviderError(f"orange cashin: HTTP {status}")
        return _cashin_outcome(response, "refund")

    def check_refund(self, query: RefundQuery) -> ProviderOutcome:
        outcome = self._status(query.refund_id, "orange refund status", "refund")
        if outcome is not None:
            return outcome
        # The status path is assumed: "no record" may be our mistake, not Orange's answer.
        return ProviderOutcome(
            status="pending",
            provider_reference=query.provider_reference,
            check_after=UNCONFIRMED_CHECK_AFTER,
            raw={"refund": "Orange Money has no record of this cashin; confirm with Orange"},
        )

    # --- payouts (cashin) -------------------------------------------------------------------
    def payouts_configured(self) -> bool:
        return settings.ORANGE_PAYOUTS_ENABLED and all(
            (settings.ORANGE_CLIENT_ID, settings.ORANGE_CLIENT_SECRET, settings.ORANGE_POS_ID)
        )

    def send_payout(self, request: PayoutRequest) -> ProviderOutcome:
        if not self.payouts_configured():
            raise payouts_unavailable("Orange Money")
        if not money.is_whole(request.amount):
            return WHOLE_UNITS_ONLY
        try:
            http.tokens.get(self._token_key(), self._fetch_token)
        except ProviderError as exc:
            raise PayoutNotSent(f"orange cashin not sent: {exc}") from exc
        try:
            response = self._send(
                "cashin",
                transaction_id=request.reference,
                phone=request.phone,
                amount=request.amount,
                currency=request.currency,
            )
            logger.info("orange payout %s: HTTP %s", request.reference, response.status_code)
            if response.status_code >= 500:
                return payout_unanswered(f"HTTP {response.status_code}", check_after=60)
            return _cashin_outcome(response, "payout")
        except http.ProviderTimeout:
            logger.warning("orange payout %s: no answer in time, will query", request.reference)
            return payout_unanswered("no answer in time", check_after=60)
        except ProviderError as exc:
            logger.warning("orange payout %s: %s", request.reference, exc)
            return payout_unanswered(str(exc), check_after=60)

    def payout_status(self, query: PayoutQuery) -> ProviderOutcome:
        try:
            outcome = self._status(query.reference, "orange payout status", "payout")
        except ProviderError as exc:
            return payout_unanswered(str(exc))
        if outcome is None:
            # The status path is assumed: "no record" may be our mistake, not Orange's answer.
            return payout_unanswered(
                "Orange Money has no record of this cashin", check_after=UNCONFIRMED_CHECK_AFTER
            )
        return outcome

    # --- callbacks --------------------------------------------------------------------------
    def parse_callback(self, callback: ProviderCallback) -> CallbackNotice:
        """`{"partnerTransactionId": <our charge or refund id>, …}`, with our ORANGE_NOTIF_TOKEN
        as `notif_token` in the query string or the body. A refund id is a cashin's callback."""
        expected = settings.ORANGE_NOTIF_TOKEN
        body = callback.body
        token = callback.query.get("notif_token") or body.get("notif_token") or ""
        if (
            not expected  # no token of ours: nothing can prove the callback is Orange's
            or not isinstance(token, str)
            or not hmac.compare_digest(token.encode(), expected.encode())
        ):
            raise CallbackUnauthenticated(
                "invalid_notif_token", "The callback's notif_token is missing or wrong."
            )
        ours = str(body.get("partnerTransactionId") or "")
        if not ours:
            raise CallbackIncomplete("partnerTransactionId")
        if ours.startswith("re_"):  # the cashin of one of our refunds
            return CallbackNotice(refund_id=ours)
        return CallbackNotice(charge_id=ours)
