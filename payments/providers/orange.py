"""Orange Money DR Congo through the Orange Money B2B RDC API ("cashout": the customer pays us;
"cashin": we pay the customer, which is how a refund or a payout is made).

Why this option: a charge here is a prompt on the customer's phone, answered there, with the
result coming back to us — which is what the B2B cashout does (the customer confirms on the handset
and Orange calls back). The other public option, Orange Money Web Payment, redirects the customer
to an Orange web page (a card-like flow our mobile money charges do not have), and there is no proof
that `cd` is an enabled Web Payment country (a DRC integrator reports being told to stop using it).

Orange's own documentation of this API is given to partners only. What we do follows the
independent integrations public code shows, each of which speaks the same protocol:
- crudfy/om-b2b (src/OmB2b.php, a Laravel package): Bearer token from /oauth/v3/token, then
  `GET {api}/services` → `token.value`/`token.expiresIn` (the services token), then
  `GET {api}/forms/{service}` with `x-omr-services-token` and a `service` header →
  `version`, `endpoint`, `token.value`/`token.expiresIn` (the forms token) and the form's amount
  limits; the transaction `POST {api}/transactions/{service}` with `x-omr-forms-token`,
  `x-omr-forms-version` and `service` headers, body peerId, peerIdType, amount, currency, posId,
  transactionId; the status `GET {api}/transactions/{transactionId}` with the `service` header,
  whose answer holds `status` and `transactionData.txnId`.
- Patou2209/ImmoZone (functions/index.js, a DRC integration, its B2B versions before it moved to
  Orange's Partner API): the same /services → /forms → /transactions sequence, and the
  notification `{transactionId, status, peerId, peerIdType, amount, currency, reference}` where
  `transactionId` is ours and `reference` Orange's (e.g. MP211208.1349.A00129), authenticated by
  the `Authorization` header value the partner sets in its profile at provisioning.
- Kwendataxi/kwenda (supabase/functions/mobile-money-payment/README.md and orange-money-webhook/
  index.ts, DRC): `{base}/orange-money-b2b/v1/cd/transactions/{cashout|cashin}`, posId in the
  body, peerId as 9 digits without 243, a Basic `Authorization` header checked on notifications
  that Orange posts to the registered URL followed by `/notifications`.
No issue thread about this API was found. Confidence stays low: every assumption is read from a
setting, in one place (Assumptions below), and listed in docs/providers/orange.md ("To confirm").

What this adapter does:
- Token: POST /oauth/v3/token with Basic auth (client id:secret), form grant_type=client_credentials;
  one token per process, renewed shortly before it expires (and at once after a 401).
- Discovery (ORANGE_FORMS, on by default): the services token and one forms token per service are
  fetched as above and cached until shortly before their `expiresIn`; a forms token refused with
  a 401/403 is dropped (so is the services token) and fetched anew for the next call. A cashout,
  cashin or payout whose forms token cannot be had is not sent.
- Payment: POST {api}/transactions/{cashout service} with peerId (9-digit national number, no
  243), peerIdType msisdn, amount in whole units, currency, posId, transactionId (our charge id),
  and the forms headers. Orange answers 202 PENDING; the result comes by notification and by
  status query.
- Status: GET {api}/transactions/{our id} with the `service` header. Orange's own id of the
  transaction — its `reference` (the notification's name), or `txnId` (the status answer's) — is
  kept as the operator reference; `transactionId` is ours and never taken for Orange's.
- Notification (parse_callback): authenticated by the `Authorization` header equal to
  ORANGE_CALLBACK_AUTHORIZATION; the body's `transactionId` names our charge (or refund: its
  cashin), `reference` is kept as the operator reference. It only ever triggers the status query.
  Today's earlier form (`partnerTransactionId`, our ORANGE_NOTIF_TOKEN as `?notif_token=` or a
  `notif_token` body field) is still accepted while ORANGE_NOTIF_TOKEN is set, and only then.
- Refund: a cashin of the refund (whole units) to the phone that paid the charge, transactionId =
  our refund id. Sent once (no retry): 2xx → as the body says (PENDING/SUCCESS/FAILED); a 4xx
  refusal → failed (nothing was paid); 409 (this id is known), 5xx or no answer in time → pending,
  the refund status query decides. A token that cannot be had means no cashin was sent: failed,
  the merchant may retry. No record at the status path keeps the refund pending for staff, never
  failed: failing would free money that may already have been paid back.
- Payout: a cashin too, of the payout (whole units) to the recipient, transactionId = our payout
  id, offered only once ORANGE_PAYOUTS_ENABLED says Orange enabled cashin for it. Sent once: 2xx →
  as the body says; a 4xx refusal with Orange's error code (e.g. cashin not allowed) → failed; 409,
  401, a bare 403, a 5xx, no answer in time, a body that is not JSON → pending. Status:
  GET {api}/transactions/{our payout id}; no record there, or no answer, keeps it pending.

Doubts, to settle with Orange before going live (docs/providers/orange.md, "To confirm"): the API
path for cd (ORANGE_API_PATH), the service names (ORANGE_CASHOUT_SERVICE, ORANGE_CASHIN_SERVICE),
whether the /services → /forms discovery and its headers are required (ORANGE_FORMS), the shape of
their answers, whether the forms `endpoint` can name another path than /transactions/{service}
(we keep ours and log a differing one), the status path and answer shape, which fields carry
Orange's id (ORANGE_REFERENCE_FIELDS), the notification's authentication (the header value set in
the partner profile, ORANGE_CALLBACK_AUTHORIZATION) and URL (the registered one, or it followed by
/notifications: both are served), the errorCode table, USD support, the 500–500,000 CDF limits
reported by an integrator (the forms answer states minimum and maximum: we log them); for refunds
and payouts: whether cashin is enabled on our merchant account at all (one integrator reports it
needs a licence), whether a cashin answers PENDING or SUCCESS, whether the cashin notification
reaches the same URL, whether Orange limits cashins per customer (our partial refunds are
independent cashins; nothing at Orange ties them to the original cashout, so only our own refund
rules stop an over-refund), whether cashin may pay any Orange Money customer, its per-customer and
daily limits, and whether an unknown or barred recipient is refused up front or reported FAILED
later. One DRC integrator later moved to Orange's Partner API (/om_partner_api/v1/cd/…, local
0-prefixed numbers): which API Orange provisions for a new merchant is itself to confirm.
"""

import hmac
import json
import logging
from dataclasses import dataclass

from django.conf import settings

from core import money
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
    payout_unanswered,
    whole_units_only,
)

logger = logging.getLogger("payments.providers.orange")

WHOLE_UNITS_ONLY = whole_units_only("Orange Money")
# A refund Orange has no record of (the assumed status path): asked again hourly, for staff to see.
UNCONFIRMED_CHECK_AFTER = 3600
# Seconds a services or forms token is kept when Orange's answer states no expiresIn.
DISCOVERY_TOKEN_LIFETIME = 3600


@dataclass(frozen=True)
class Assumptions:
    """Everything the public material leaves open about the B2B RDC API, in one place. Each value
    comes from a setting (config/settings/providers.py) and is listed in docs/providers/orange.md ("To
    confirm with Orange"); the header names are those every public integration sends."""

    api_path: str  # ORANGE_API_PATH: the API's root, e.g. /orange-money-b2b/v1/cd
    cashout_service: str  # ORANGE_CASHOUT_SERVICE: the customer pays us
    cashin_service: str  # ORANGE_CASHIN_SERVICE: we pay the customer (refunds, payouts)
    forms: bool  # ORANGE_FORMS: discover /services and /forms/{service}, send their headers
    callback_authorization: str  # ORANGE_CALLBACK_AUTHORIZATION: set in the partner profile
    notif_token: str  # ORANGE_NOTIF_TOKEN: today's earlier callback form, accepted while set
    reference_fields: tuple[str, ...]  # ORANGE_REFERENCE_FIELDS: where Orange's own id is

    SERVICES_TOKEN_HEADER = "x-omr-services-token"
    FORMS_TOKEN_HEADER = "x-omr-forms-token"
    FORMS_VERSION_HEADER = "x-omr-forms-version"
    SERVICE_HEADER = "service"
    # The notification names our id `transactionId`; today's earlier form `partnerTransactionId`
    # (with Orange's id, then, as `transactionId`).
    CALLBACK_ID = "transactionId"
    LEGACY_CALLBACK_ID = "partnerTransactionId"
    CALLBACK_PATHS = ("notifications",)  # Orange may post to the registered URL + /notifications

    def transactions(self, suffix: str) -> str:
        return f"{self.api_path}/transactions/{suffix}"


def assumptions() -> Assumptions:
    return Assumptions(
        api_path=settings.ORANGE_API_PATH,
        cashout_service=settings.ORANGE_CASHOUT_SERVICE,
        cashin_service=settings.ORANGE_CASHIN_SERVICE,
        forms=settings.ORANGE_FORMS,
        callback_authorization=settings.ORANGE_CALLBACK_AUTHORIZATION,
        notif_token=settings.ORANGE_NOTIF_TOKEN,
        reference_fields=tuple(settings.ORANGE_REFERENCE_FIELDS),
    )


def orange_reference(body: dict, ours: str = "") -> str:
    """Orange's own id of a transaction in one of its answers or notifications: the first of the
    reference fields found (in `transactionData`, then at the top), never our own id. In today's
    earlier shape, where our id is `partnerTransactionId`, Orange's is `transactionId`."""
    data = body.get("transactionData") if isinstance(body.get("transactionData"), dict) else {}
    for part in (data, body):
        for name in assumptions().reference_fields:
            value = part.get(name)
            if isinstance(value, (str, int)) and str(value) and str(value) != ours:
                return str(value)
    for part in (data, body):
        legacy = part.get(Assumptions.LEGACY_CALLBACK_ID)
        value = part.get("transactionId")
        if legacy and value and str(value) not in (ours, str(legacy)):
            return str(value)
    return ""


def outcome_for_status(body: dict, subject: str = "payment", ours: str = "") -> ProviderOutcome:
    """transactionStatus (or status) SUCCESS → succeeded, FAILED → failed, anything else →
    pending; `ours` is our id of the transaction, never taken for Orange's."""
    data = body.get("transactionData") if isinstance(body.get("transactionData"), dict) else body
    state = str(
        data.get("transactionStatus") or body.get("transactionStatus") or body.get("status") or ""
    ).upper()
    reference = orange_reference(body, ours)
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


def _lenient_body(response: http.Answer) -> dict:
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


def _cashin_outcome(response: http.Answer, subject: str, ours: str) -> ProviderOutcome:
    """Orange's answer (not a 5xx) to a cashin paying a refund or a payout. ProviderError when a
    2xx body is not JSON."""
    status = response.status_code
    if status < 300:
        return outcome_for_status(http.json_body(response, "orange cashin"), subject, ours)
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


def _expires_in(token: dict) -> float:
    return http.lifetime(
        token.get("expiresIn") or token.get("expires_in"), DISCOVERY_TOKEN_LIFETIME
    )


class OrangeMoney(PaysOut):
    name = "orange_money"
    label = operator = "Orange Money"
    blocking = False  # Orange answers 202 PENDING at once; the customer confirms afterwards
    required_settings = ("ORANGE_CLIENT_ID", "ORANGE_CLIENT_SECRET", "ORANGE_POS_ID")
    # Cashin paying a customer is offered only once Orange has enabled it for us.
    payout_settings = ("ORANGE_PAYOUTS_ENABLED", *required_settings)
    payout_call = "orange cashin"
    callback_paths = Assumptions.CALLBACK_PATHS

    @property
    def callback_settings(self) -> tuple[str, ...]:
        """The proof a callback comes from Orange: the partner profile's Authorization header,
        or, while it is set, today's earlier notif_token. Without either, callbacks are refused."""
        if settings.ORANGE_NOTIF_TOKEN and not settings.ORANGE_CALLBACK_AUTHORIZATION:
            return ("ORANGE_NOTIF_TOKEN",)
        return ("ORANGE_CALLBACK_AUTHORIZATION",)

    def _base(self) -> str:
        return settings.ORANGE_BASE_URL

    def _token_key(self) -> tuple:
        return ("orange", self._base(), settings.ORANGE_CLIENT_ID)

    def _fetch_token(self) -> tuple[str, float]:
        return http.client_credentials_token(
            f"{self._base()}/oauth/v3/token",
            what="orange token",
            default_lifetime=3600,
            auth=(settings.ORANGE_CLIENT_ID, settings.ORANGE_CLIENT_SECRET),
            data={"grant_type": "client_credentials"},
            headers={"Accept": "application/json"},
        )

    def _call(self, method: str, path: str, *, extra_headers: dict | None = None, **kwargs):
        return http.send_authorized(
            method,
            f"{self._base()}{path}",
            token_key=self._token_key(),
            fetch_token=self._fetch_token,
            headers=lambda token: {
                "Authorization": f"Bearer {token}",
                "Accept": "application/json",
                **(extra_headers or {}),
            },
            **kwargs,
        )

    # --- discovery: the services token, then one forms token per service ---------------------
    def _services_key(self) -> tuple:
        return ("orange-services", self._base(), settings.ORANGE_CLIENT_ID)

    def _forms_key(self, service: str) -> tuple:
        return ("orange-forms", self._base(), settings.ORANGE_CLIENT_ID, service)

    def _fetch_services_token(self) -> tuple[str, float]:
        response = self._call(
            "GET",
            f"{assumptions().api_path}/services",
            what="orange services",
            ref="-",
            idempotent=True,
        )
        body = http.json_body(response, "orange services")
        token = body.get("token") if isinstance(body.get("token"), dict) else {}
        if response.status_code != 200 or not token.get("value"):
            raise ProviderError(f"orange services: HTTP {response.status_code}, no token")
        return str(token["value"]), _expires_in(token)

    def _fetch_form(self, service: str) -> tuple[str, float]:
        """GET /forms/{service} with the services token. A refusal (401/403) is taken for the
        services token's: it is dropped and asked once more with a new one (and, should that be
        refused too, a renewed access token)."""
        a = assumptions()
        path = f"{a.api_path}/forms/{service}"
        services_token = http.tokens.get(self._services_key(), self._fetch_services_token)
        headers = {a.SERVICES_TOKEN_HEADER: services_token, a.SERVICE_HEADER: service}
        access = http.tokens.get(self._token_key(), self._fetch_token)
        response = http.send(
            "GET",
            f"{self._base()}{path}",
            what="orange forms",
            ref=service,
            idempotent=True,
            headers={"Authorization": f"Bearer {access}", "Accept": "application/json", **headers},
        )
        if response.status_code in (401, 403):
            http.tokens.forget(self._services_key(), services_token)
            services_token = http.tokens.get(self._services_key(), self._fetch_services_token)
            response = self._call(
                "GET",
                path,
                extra_headers={**headers, a.SERVICES_TOKEN_HEADER: services_token},
                what="orange forms",
                ref=service,
                idempotent=True,
            )
        body = http.json_body(response, "orange forms")
        token = body.get("token") if isinstance(body.get("token"), dict) else {}
        if response.status_code != 200 or not token.get("value"):
            raise ProviderError(f"orange forms {service}: HTTP {response.status_code}, no token")
        endpoint = str(body.get("endpoint") or "")
        if endpoint and not endpoint.rstrip("/").endswith(f"/transactions/{service}"):
            logger.warning("orange forms %s: endpoint %s differs from ours", service, endpoint)
        limits = {
            str(field.get("name")): (field.get("minimum"), field.get("maximum"))
            for field in body.get("form") or []
            if isinstance(field, dict) and field.get("name") == "amount"
        }
        if limits:
            logger.info("orange forms %s: amount limits %s", service, limits["amount"])
        form = {"token": str(token["value"]), "version": str(body.get("version") or "")}
        return json.dumps(form), _expires_in(token)

    def _form(self, service: str) -> dict[str, str]:
        """The forms token and version of a service (cached); ProviderError when Orange does not
        give one, in which case the transaction is not sent."""
        value = http.tokens.get(self._forms_key(service), lambda: self._fetch_form(service))
        return json.loads(value)

    def _ready(self, service: str) -> None:
        """Everything a transaction of `service` needs before it is sent (the access token and,
        with ORANGE_FORMS, its forms token); ProviderError when something cannot be had."""
        http.tokens.get(self._token_key(), self._fetch_token)
        if assumptions().forms:
            self._form(service)

    def _forget_forms(self, service: str) -> None:
        http.tokens.forget(self._forms_key(service))
        http.tokens.forget(self._services_key())

    # --- transactions -----------------------------------------------------------------------
    def _send(
        self, service: str, *, transaction_id: str, phone: str, amount: int, currency: str
    ) -> http.Answer:
        """A cashout (the customer pays us) or a cashin (we pay the customer): never retried."""
        a = assumptions()
        headers = {}
        if a.forms:
            form = self._form(service)
            headers = {
                a.FORMS_TOKEN_HEADER: form["token"],
                a.FORMS_VERSION_HEADER: form["version"],
                a.SERVICE_HEADER: service,
            }
        response = self._call(
            "POST",
            a.transactions(service),
            extra_headers=headers,
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
        if a.forms and (
            response.status_code == 401
            or (response.status_code == 403 and not _error_code(_lenient_body(response)))
        ):
            self._forget_forms(service)  # the next transaction asks for fresh ones
        return response

    def _status(
        self, transaction_id: str, service: str, what: str, subject: str
    ) -> ProviderOutcome | None:
        """Orange's status of one of our transactions, or None when it has no record of it."""
        a = assumptions()
        response = self._call(
            "GET",
            a.transactions(transaction_id),
            extra_headers={a.SERVICE_HEADER: service},
            what=what,
            ref=transaction_id,
            idempotent=True,
        )
        if response.status_code == 404:
            return None
        if response.status_code >= 300:
            raise ProviderError(f"{what}: HTTP {response.status_code}")
        outcome = outcome_for_status(http.json_body(response, what), subject, transaction_id)
        logger.info("%s for %s: %s", what, transaction_id, outcome.status)
        return outcome

    def request_payment(self, payment: MobileMoneyPayment) -> ProviderOutcome:
        if not money.is_whole(payment.amount):
            return WHOLE_UNITS_ONLY
        response = self._send(
            assumptions().cashout_service,
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
            return outcome_for_status(body, ours=payment.charge_id)
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
        outcome = self._status(
            query.charge_id, assumptions().cashout_service, "orange status", "payment"
        )
        return outcome or ProviderOutcome(status="pending", raw={"status": "not found"})

    def refund(self, request: RefundRequest) -> ProviderOutcome:
        """A cashin of the refund to the phone that paid the charge (sent once, never retried)."""
        if not money.is_whole(request.amount):
            return WHOLE_UNITS_ONLY
        service = assumptions().cashin_service
        try:
            self._ready(service)
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
                service,
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
        return _cashin_outcome(response, "refund", request.refund_id)

    def check_refund(self, query: RefundQuery) -> ProviderOutcome:
        outcome = self._status(
            query.refund_id, assumptions().cashin_service, "orange refund status", "refund"
        )
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
    def _payout_ready(self) -> None:
        self._ready(assumptions().cashin_service)

    def _pay_out(self, request: PayoutRequest, ready: None) -> ProviderOutcome:
        response = self._send(
            assumptions().cashin_service,
            transaction_id=request.reference,
            phone=request.phone,
            amount=request.amount,
            currency=request.currency,
        )
        logger.info("orange payout %s: HTTP %s", request.reference, response.status_code)
        if response.status_code >= 500:
            return payout_unanswered(
                f"HTTP {response.status_code}", check_after=self.payout_check_after
            )
        return _cashin_outcome(response, "payout", request.reference)

    def payout_status(self, query: PayoutQuery) -> ProviderOutcome:
        try:
            outcome = self._status(
                query.reference, assumptions().cashin_service, "orange payout status", "payout"
            )
        except ProviderError as exc:
            return payout_unanswered(str(exc))
        if outcome is None:
            # The status path is assumed: "no record" may be our mistake, not Orange's answer.
            return payout_unanswered(
                "Orange Money has no record of this cashin", check_after=UNCONFIRMED_CHECK_AFTER
            )
        return outcome

    # --- notifications ----------------------------------------------------------------------
    def parse_callback(self, callback: ProviderCallback) -> CallbackNotice:
        """Orange's notification `{transactionId: <our charge or refund id>, status, peerId,
        peerIdType, amount, currency, reference: <Orange's id>}`, authenticated by the
        Authorization header set in the partner profile (ORANGE_CALLBACK_AUTHORIZATION). While
        ORANGE_NOTIF_TOKEN is set, today's earlier form is taken too: `partnerTransactionId`,
        with that token as `?notif_token=` or a `notif_token` body field. A refund or payout id
        is the notification of its cashin."""
        a = assumptions()
        body = callback.body
        header = callback.headers.get("Authorization", "")
        token = callback.query.get("notif_token") or body.get("notif_token") or ""
        by_header = _same(header, a.callback_authorization)
        by_token = _same(token, a.notif_token)
        if not (by_header or by_token):
            if a.callback_authorization:
                raise CallbackUnauthenticated(
                    "invalid_authorization",
                    "The notification's Authorization header is missing or wrong.",
                )
            raise CallbackUnauthenticated(
                "invalid_notif_token", "The callback's notif_token is missing or wrong."
            )
        ours = str(body.get(a.LEGACY_CALLBACK_ID) or body.get(a.CALLBACK_ID) or "")
        if not ours:
            raise CallbackIncomplete(a.CALLBACK_ID)
        reference = orange_reference(body, ours)
        if ours.startswith("re_"):  # the cashin of one of our refunds
            return CallbackNotice(refund_id=ours, provider_reference=reference)
        if ours.startswith("po_"):  # the cashin of one of our payouts
            return CallbackNotice(payout_id=ours, provider_reference=reference)
        return CallbackNotice(charge_id=ours, provider_reference=reference)


def _same(given, expected: str) -> bool:
    """Whether a credential received equals ours (constant time); never when ours is unset."""
    return bool(
        expected
        and isinstance(given, str)
        and given
        and hmac.compare_digest(given.encode(), expected.encode())
    )
