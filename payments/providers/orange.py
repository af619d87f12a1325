"""Orange Money DR Congo through the Orange Money B2B RDC API ("cashout": the customer pays us).

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
  ORANGE_NOTIF_TOKEN, see payments/provider_callbacks.py) only ever triggers this query.
- Refund: not offered by the B2B cashout API as far as the public material goes: a failed outcome
  `refund_not_supported` (refund through Orange's merchant portal, then record it).

Doubts, to settle with Orange before going live (public material is thin, confidence low): the exact
status path (assumed above) and its answer shape (`transactionStatus` SUCCESS/FAILED/PENDING as
in the callback), the callback's authentication (no per-payment notif_token exists in this API: we
expect the token we chose, ORANGE_NOTIF_TOKEN, in the callback URL registered at subscription as
`?notif_token=…` or in the body), the errorCode table, USD support, the 500–500,000 CDF limits
reported by an integrator, and whether "cashin" may serve as a refund.
"""

import logging

from django.conf import settings

from payments.phones import national_number
from payments.providers import http
from payments.providers.base import (
    MobileMoneyPayment,
    PaymentQuery,
    ProviderError,
    ProviderOutcome,
    RefundsMadeInPortal,
)

logger = logging.getLogger("payments.providers.orange")

API = "/orange-money-b2b/v1/cd/transactions"


def outcome_for_status(body: dict) -> ProviderOutcome:
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
            failure_message=f"Orange Money did not complete the payment{f' ({error})' if error else ''}.",
            provider_reference=reference,
            raw=raw,
        )
    return ProviderOutcome(status="pending", provider_reference=reference, raw=raw)


class OrangeMoney(RefundsMadeInPortal):
    refund_portal_message = "Orange Money refunds are made from the Orange merchant portal."
    name = "orange_money"

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
        for renewed in (False, True):
            token = http.tokens.get(self._token_key(), self._fetch_token)
            response = http.send(
                method,
                f"{self._base()}{path}",
                headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
                **kwargs,
            )
            if response.status_code != 401 or renewed:
                return response
            http.tokens.forget(self._token_key())
        return response  # pragma: no cover

    def request_payment(self, payment: MobileMoneyPayment) -> ProviderOutcome:
        if payment.amount % 100:
            return ProviderOutcome(
                status="failed",
                failure_code="amount_invalid",
                failure_message="Orange Money takes whole units only.",
            )
        response = self._call(
            "POST",
            f"{API}/cashout",
            what="orange cashout",
            ref=payment.charge_id,
            idempotent=False,
            json={
                "peerId": national_number(payment.phone),
                "peerIdType": "msisdn",
                "amount": payment.amount // 100,
                "currency": payment.currency,
                "posId": settings.ORANGE_POS_ID,
                "transactionId": payment.charge_id,
            },
        )
        if response.status_code >= 500:
            raise ProviderError(f"orange cashout: HTTP {response.status_code}")
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
        response = self._call(
            "GET",
            f"{API}/{query.charge_id}",
            what="orange status",
            ref=query.charge_id,
            idempotent=True,
        )
        if response.status_code == 404:
            return ProviderOutcome(status="pending", raw={"status": "not found"})
        if response.status_code >= 300:
            raise ProviderError(f"orange status: HTTP {response.status_code}")
        outcome = outcome_for_status(http.json_body(response, "orange status"))
        logger.info("orange status for %s: %s", query.charge_id, outcome.status)
        return outcome
