"""A local Orange Money B2B RDC API, speaking as the public integrations show it: Basic-auth
token; `GET /services` (Bearer) giving the services token; `GET /forms/{service}` (Bearer and
`x-omr-services-token`) giving a forms token and its version; Bearer cashout and cashin (the
merchant pays the customer: our refunds and payouts) that require the service's forms token as
`x-omr-forms-token`, its `x-omr-forms-version` and a `service` header; one status path for both;
and the notification Orange sends once the customer has answered on the handset,
`{transactionId, status, peerId, peerIdType, amount, currency, reference}`, with the
Authorization header value the partner set in its profile. `transactionId` is always the
partner's (ours); Orange's own id is `reference` (`txnId` in its answers).

Money rule: the cashins of refunds (not failed) to a customer never add up to more than the
successful cashouts of that customer in that currency; one that would is recorded as a violation
(Orange would pay it: it does not tie a cashin to a cashout, so only our refund rules stop an
over-refund). Orange cannot tell a refund from a payout; this fake tells them apart by our ids
(re_… a refund, po_… a payout): payouts are paid from the merchant's balance, not tied to a
cashout. A transactionId sent twice (a cashin paid twice) is refused (409) and recorded as a
violation."""

import base64
import re
import secrets
import threading
import time
from urllib.parse import parse_qs

from tests.fakes.base import FakeProvider, Request, Response

ROOT = "/orange-money-b2b/v1/cd"
API = f"{ROOT}/transactions"
PEER = re.compile(r"^(80|84|85|89)\d{7}$")
SERVICES = ("cashout", "cashin")


def _is_refund(record: dict) -> bool:
    return record["transactionId"].startswith("re_")


class FakeOrange(FakeProvider):
    def __init__(self, client_id="orange-client", client_secret="orange-secret", pos_id="POS42"):
        super().__init__()
        self.client_id, self.client_secret, self.pos_id = client_id, client_secret, pos_id
        self.tokens: set[str] = set()
        self.token_requests = 0
        self.services_tokens: set[str] = set()
        self.forms_tokens: dict[str, str] = {}  # forms token → its service
        self.forms_version = "3"
        self.require_forms = True  # False: an account whose transactions take no forms headers
        # The partner profile's notification settings: the Authorization header Orange sends.
        self.callback_authorization = (
            "Basic "
            + base64.b64encode(b"orange-notify:" + secrets.token_urlsafe(12).encode()).decode()
        )
        self.transactions: dict[str, dict] = {}  # our transactionId → record
        self.outcomes: dict[str, tuple[str, str]] = {}  # peerId → (final status, errorCode)
        self.queries_before_answer = 1
        # Cashin switches: refused as on an account without cashin; held past our timeout or
        # answered by a gateway error (the cashin is recorded first: Orange took it) until
        # `released` is set; the final status the status query reaches.
        self.cashin_enabled = True
        self.cashin_hold = False
        self.cashin_gateway_error = 0  # e.g. 504: recorded, then the gateway answers this status
        self.released = threading.Event()
        self.cashin_outcome: tuple[str, str | None] = ("SUCCESS", None)
        self.cashin_outcomes: dict[str, tuple[str, str | None]] = {}  # peerId → final status
        self.cashins_in_status = True  # False: the status path knows cashouts only (404)
        self.route("POST", "/oauth/v3/token", self.token)
        self.route("GET", f"{ROOT}/services", self.services)
        self.route("GET", f"{ROOT}/forms/(?P<service>[^/]+)", self.forms)
        self.route("POST", f"{API}/cashout", self.cashout)
        self.route("POST", f"{API}/cashin", self.cashin)
        self.route("GET", f"{API}/(?P<txn>[^/]+)", self.status)

    def token(self, request: Request) -> Response:
        expected = base64.b64encode(f"{self.client_id}:{self.client_secret}".encode()).decode()
        if request.headers.get("authorization") != f"Basic {expected}":
            return self.refuse(401, "token: Basic auth with client id and secret expected")
        if not request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"
        ) or parse_qs(request.body.decode()).get("grant_type") != ["client_credentials"]:
            return self.refuse(400, "token: form grant_type=client_credentials expected")
        token = secrets.token_urlsafe(24)
        with self.lock:
            self.tokens.add(token)
            self.token_requests += 1
        return Response(200, {"token_type": "Bearer", "access_token": token, "expires_in": 3600})

    def _auth(self, request: Request) -> Response | None:
        token = self.bearer(request)
        if token is None:
            return self.refuse(401, "no Bearer token")
        if token not in self.tokens:
            return Response(401, {"code": 42, "message": "Expired credentials"})
        return None

    # --- discovery ----------------------------------------------------------------------------
    def services(self, request: Request) -> Response:
        refused = self._auth(request)
        if refused:
            return refused
        token = secrets.token_urlsafe(18)
        with self.lock:
            self.services_tokens.add(token)
        return Response(
            200,
            {"token": {"value": token, "expiresIn": 86400},
             "services": [{"items": [{"name": name} for name in SERVICES]}]},
        )  # fmt: skip

    def forms(self, request: Request, service: str) -> Response:
        refused = self._auth(request)
        if refused:
            return refused
        given = request.headers.get("x-omr-services-token")
        if not given:
            return self.refuse(401, f"forms {service}: no x-omr-services-token")
        if given not in self.services_tokens:
            return Response(401, {"code": 41, "message": "Invalid services token"})
        if service not in SERVICES:
            return self.refuse(404, f"forms: unknown service {service!r}")
        token = self.issue_forms_token(service)
        return Response(
            200,
            {"version": self.forms_version, "endpoint": f"/transactions/{service}",
             "token": {"value": token, "expiresIn": 86400},
             "form": [{"name": "peerId", "type": "string"},
                      {"name": "amount", "type": "number", "minimum": 500, "maximum": 500000}]},
        )  # fmt: skip

    def issue_forms_token(self, service: str) -> str:
        token = secrets.token_urlsafe(18)
        with self.lock:
            self.forms_tokens[token] = service
        return token

    def expire_discovery_tokens(self) -> None:
        """Orange forgets the services and forms tokens it issued (they expired)."""
        with self.lock:
            self.services_tokens.clear()
            self.forms_tokens.clear()

    def forms_headers(self, service: str) -> dict[str, str]:
        """Valid forms headers of a service, as a partner that ran the discovery sends them."""
        return {
            "x-omr-forms-token": self.issue_forms_token(service),
            "x-omr-forms-version": self.forms_version,
            "service": service,
        }

    def _forms_refusal(self, request: Request, kind: str) -> Response | None:
        if not self.require_forms:
            return None
        h = request.headers
        token = h.get("x-omr-forms-token")
        if not token:
            return self.refuse(401, f"{kind}: no x-omr-forms-token")
        if h.get("service") != kind:
            return self.refuse(400, f"{kind}: service header must be {kind}")
        if h.get("x-omr-forms-version") != self.forms_version:
            return self.refuse(400, f"{kind}: x-omr-forms-version")
        with self.lock:
            issued_for = self.forms_tokens.get(token)
        if issued_for is None:
            return Response(401, {"code": 41, "message": "Invalid forms token"})
        if issued_for != kind:
            return self.refuse(401, f"{kind}: forms token of the {issued_for} service")
        return None

    # --- transactions -------------------------------------------------------------------------
    def _transaction(self, request: Request, kind: str) -> tuple[dict | None, Response | None]:
        """Check a cashout/cashin request and record it: (record, None) or (None, refusal)."""
        refused = self._auth(request) or self._forms_refusal(request, kind)
        if refused:
            return None, refused
        body = request.json() or {}
        checks = [
            (isinstance(body.get("peerId"), str) and bool(PEER.match(body["peerId"])),
             f"{kind}: peerId {body.get('peerId')!r}: 9 digits with an Orange prefix, no 243"),
            (body.get("peerIdType") == "msisdn", f"{kind}: peerIdType must be msisdn"),
            (type(body.get("amount")) is int and body["amount"] > 0, f"{kind}: amount: whole units"),
            (body.get("currency") in ("CDF", "USD"), f"{kind}: currency"),
            (body.get("posId") == self.pos_id, f"{kind}: posId"),
            (isinstance(body.get("transactionId"), str) and bool(body["transactionId"]),
             f"{kind}: transactionId"),
        ]  # fmt: skip
        for ok, message in checks:
            if not ok:
                return None, self.refuse(400, message)
        with self.lock:
            if body["transactionId"] in self.transactions:
                return None, self.refuse(
                    409, f"{kind}: duplicate transactionId", {"message": "Duplicate"}
                )
            record = {
                "type": kind,
                "transactionId": body["transactionId"],  # ours
                "reference": f"{'CO' if kind == 'cashout' else 'CI'}"
                f"{time.strftime('%y%m%d.%H%M')}.{secrets.token_hex(3).upper()}",  # Orange's
                "transactionStatus": "PENDING",
                "amount": body["amount"],
                "currency": body["currency"],
                "peerId": body["peerId"],
                "posId": body["posId"],
                "errorCode": None,
                "queries": 0,
            }
            self.transactions[body["transactionId"]] = record
        return record, None

    @staticmethod
    def _answer_body(record: dict) -> dict:
        """Orange's answer about a transaction: `status`, and `transactionData` naming it by our
        transactionId and by Orange's own txnId."""
        return {
            "status": record["transactionStatus"],
            "message": "Transaction " + record["transactionStatus"].lower(),
            "transactionData": {
                "transactionId": record["transactionId"],
                "type": record["type"].upper(),
                "peerId": record["peerId"],
                "peerIdType": "msisdn",
                "amount": record["amount"],
                "currency": record["currency"],
                "posId": record["posId"],
                "txnId": record["reference"],
                "errorCode": record["errorCode"],
            },
        }

    def cashout(self, request: Request) -> Response:
        record, refused = self._transaction(request, "cashout")
        return refused or Response(202, self._answer_body(record))

    def cashin(self, request: Request) -> Response:
        if not self.cashin_enabled:
            # A business refusal (the account may not pay customers), after the same auth check.
            return self._auth(request) or Response(
                403,
                {"code": "SERVICE_NOT_ALLOWED", "message": "Service cashin is not allowed for "
                 "this partner", "description": "Contact your Orange Money account manager"},
            )  # fmt: skip
        record, refused = self._transaction(request, "cashin")
        if refused:
            return refused
        with self.lock:
            paid = self.paid(record["peerId"], record["currency"])
            refunded = self.refunded(record["peerId"], record["currency"])
            if _is_refund(record) and refunded > paid:
                self.violations.append(
                    f"cashin {record['transactionId']}: {refunded} {record['currency']} "
                    f"paid back to {record['peerId']}, who paid {paid}"
                )
            answer = self._answer_body(record)
        if self.cashin_hold:
            self.released.wait(timeout=30)
        if self.cashin_gateway_error:
            return Response(self.cashin_gateway_error, {"message": "Gateway Timeout"})
        return Response(202, answer)

    def _sum(self, kind: str, peer: str, currency: str, statuses: set[str], test=None) -> int:
        with self.lock:
            return sum(
                r["amount"]
                for r in self.transactions.values()
                if r["type"] == kind
                and r["peerId"] == peer
                and r["currency"] == currency
                and r["transactionStatus"] in statuses
                and (test is None or test(r))
            )

    def paid(self, peer: str, currency: str) -> int:
        """What this customer paid us (successful cashouts), in whole units."""
        return self._sum("cashout", peer, currency, {"SUCCESS"})

    def refunded(self, peer: str, currency: str) -> int:
        """What we paid (or may have paid) back to this customer: cashins of refunds not failed."""
        return self._sum("cashin", peer, currency, {"PENDING", "SUCCESS"}, _is_refund)

    def paid_out(self, peer: str, currency: str) -> int:
        """What Orange paid to this customer as payouts (successful cashins of payouts)."""
        return self._sum("cashin", peer, currency, {"SUCCESS"}, lambda r: not _is_refund(r))

    # --- the customer's answer and Orange's notification ---------------------------------------
    def _complete(self, txn: str) -> dict:
        with self.lock:
            record = self.transactions[txn]
            if record["type"] == "cashin":
                record["transactionStatus"], record["errorCode"] = self.cashin_outcomes.get(
                    record["peerId"], self.cashin_outcome
                )
            else:
                record["transactionStatus"], record["errorCode"] = self.outcomes.get(
                    record["peerId"], ("SUCCESS", None)
                )
            return record

    def answer(self, txn: str) -> dict:
        """The customer answers on the handset (a cashin: Orange completes it); returns the
        notification Orange posts, to be sent with `callback_authorization` as Authorization."""
        record = self._complete(txn)
        return {
            "transactionId": record["transactionId"],
            "status": record["transactionStatus"],
            "peerId": record["peerId"],
            "peerIdType": "msisdn",
            "amount": record["amount"],
            "currency": record["currency"],
            "reference": record["reference"],
        }

    def legacy_answer(self, txn: str) -> dict:
        """The same answer in the earlier callback form this service first expected:
        `partnerTransactionId` ours, `transactionId` Orange's (sent with our notif_token)."""
        record = self._complete(txn)
        return {
            "partnerTransactionId": record["transactionId"],
            "transactionId": record["reference"],
            "transactionStatus": record["transactionStatus"],
            "errorCode": record["errorCode"],
        }

    def status(self, request: Request, txn: str) -> Response:
        refused = self._auth(request)
        if refused:
            return refused
        with self.lock:
            record = self.transactions.get(txn)
            if record is None or (record["type"] == "cashin" and not self.cashins_in_status):
                return Response(404, {"message": "Transaction not found"})
            record["queries"] += 1
            if (
                record["transactionStatus"] == "PENDING"
                and record["queries"] > self.queries_before_answer
            ):
                self._complete(txn)
            return Response(200, self._answer_body(record))
