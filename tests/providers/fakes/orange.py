"""A local Orange Money B2B RDC API (providers.md §4b): Basic-auth token, Bearer cashout, status,
and the callback Orange sends once the customer has answered on the handset."""

import base64
import re
import secrets
from urllib.parse import parse_qs

from tests.providers.fakes.base import FakeProvider, Request, Response

API = "/orange-money-b2b/v1/cd/transactions"
PEER = re.compile(r"^(80|84|85|89)\d{7}$")


class FakeOrange(FakeProvider):
    def __init__(self, client_id="orange-client", client_secret="orange-secret", pos_id="POS42"):
        super().__init__()
        self.client_id, self.client_secret, self.pos_id = client_id, client_secret, pos_id
        self.tokens: set[str] = set()
        self.token_requests = 0
        self.transactions: dict[str, dict] = {}
        self.outcomes: dict[str, tuple[str, str]] = {}  # peerId → (final status, errorCode)
        self.queries_before_answer = 1
        self.route("POST", "/oauth/v3/token", self.token)
        self.route("POST", f"{API}/cashout", self.cashout)
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

    def cashout(self, request: Request) -> Response:
        refused = self._auth(request)
        if refused:
            return refused
        body = request.json() or {}
        checks = [
            (isinstance(body.get("peerId"), str) and bool(PEER.match(body["peerId"])),
             f"peerId {body.get('peerId')!r}: 9 digits with an Orange prefix, no 243"),
            (body.get("peerIdType") == "msisdn", "peerIdType must be msisdn"),
            (isinstance(body.get("amount"), int) and body["amount"] > 0, "amount: whole units"),
            (body.get("currency") in ("CDF", "USD"), "currency"),
            (body.get("posId") == self.pos_id, "posId"),
            (bool(body.get("transactionId")), "transactionId"),
        ]  # fmt: skip
        for ok, message in checks:
            if not ok:
                return self.refuse(400, message)
        with self.lock:
            if body["transactionId"] in self.transactions:
                return self.refuse(409, "duplicate transactionId", {"message": "Duplicate"})
            record = {
                "partnerTransactionId": body["transactionId"],
                "transactionId": f"CO{secrets.token_hex(5).upper()}",
                "transactionStatus": "PENDING",
                "amount": body["amount"],
                "currency": body["currency"],
                "peerId": body["peerId"],
                "errorCode": None,
                "queries": 0,
            }
            self.transactions[body["transactionId"]] = record
        return Response(
            202,
            {"status": "PENDING", "transactionData": {"txnId": record["transactionId"],
             "partnerTransactionId": body["transactionId"], "transactionStatus": "PENDING"}},
        )  # fmt: skip

    def answer(self, txn: str) -> dict:
        """The customer answers on the handset; returns the callback body Orange sends."""
        with self.lock:
            record = self.transactions[txn]
            record["transactionStatus"], record["errorCode"] = self.outcomes.get(
                record["peerId"], ("SUCCESS", None)
            )
            return {k: v for k, v in record.items() if k != "queries"}

    def status(self, request: Request, txn: str) -> Response:
        refused = self._auth(request)
        if refused:
            return refused
        with self.lock:
            record = self.transactions.get(txn)
            if record is None:
                return Response(404, {"message": "Transaction not found"})
            record["queries"] += 1
            if (
                record["transactionStatus"] == "PENDING"
                and record["queries"] > self.queries_before_answer
            ):
                self.answer(txn)
            return Response(200, {k: v for k, v in record.items() if k != "queries"})
