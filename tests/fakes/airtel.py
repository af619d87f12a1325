"""A faithful local Airtel Money Open API."""

import base64
import hashlib
import hmac
import json
import re
import secrets
import time

import requests

from tests.fakes.base import FakeProvider, Request, Response

MSISDN = re.compile(r"^(97|98|99)\d{7}$")
ACCEPTED = {
    "data": {"transaction": {"id": None, "status": "SUCCESS"}},
    "status": {
        "code": "200",
        "message": "SUCCESS",
        "result_code": "ESB000010",
        "response_code": "DP00800001006",
        "success": True,
    },
}


class FakeAirtel(FakeProvider):
    def __init__(self, client_id="airtel-client", client_secret="airtel-secret") -> None:
        super().__init__()
        self.client_id, self.client_secret = client_id, client_secret
        self.token_lifetime = "180"
        self.tokens: dict[str, float] = {}
        self.token_requests = 0
        self.transactions: dict[str, dict] = {}
        # msisdn → response_code answered at once instead of DP00800001006.
        self.immediate: dict[str, str] = {}
        # msisdn → (final enquiry status, response_code); default ("TS", "DP00800001001").
        self.outcomes: dict[str, tuple[str, str]] = {}
        self.enquiries_before_answer = 1  # the prompt stays TIP for this many enquiries
        self.refunds: list[dict] = []
        # The app settings: where Airtel POSTs its callbacks, and the private key of their hash.
        self.callback_url = ""
        self.callback_hash_key = ""
        self.route("POST", "/auth/oauth2/token", self.token)
        self.route("POST", "/merchant/v1/payments/", self.pay)
        self.route("GET", r"/standard/v1/payments/(?P<txn>[^/]+)", self.enquiry)
        self.route("POST", "/standard/v1/payments/refund", self.refund)

    def enquiries(self, txn: str) -> int:
        """How many status enquiries of this transaction Airtel received."""
        return [r.path for r in self.log].count(f"/standard/v1/payments/{txn}")

    def expire_tokens(self) -> None:
        with self.lock:
            self.tokens.clear()

    def _auth(self, request: Request) -> Response | None:
        token = self.bearer(request)
        if token is None:
            return self.refuse(401, "no Bearer token")
        if self.tokens.get(token, 0) < time.time():
            return Response(401, {"error": "invalid_token"})  # expired: not a client fault
        return None

    def _country_currency(self, request: Request) -> Response | None:
        if request.headers.get("x-country") != "CD":
            return self.refuse(400, "X-Country must be CD")
        if request.headers.get("x-currency") not in ("CDF", "USD"):
            return self.refuse(400, "X-Currency must be CDF or USD")
        return None

    def token(self, request: Request) -> Response:
        body = request.json()
        if not request.headers.get("content-type", "").startswith("application/json"):
            return self.refuse(400, "token: JSON body expected")
        if not isinstance(body, dict) or body.get("grant_type") != "client_credentials":
            return self.refuse(400, "token: grant_type client_credentials expected")
        if (body.get("client_id"), body.get("client_secret")) != (
            self.client_id,
            self.client_secret,
        ):
            return self.refuse(401, "token: wrong client credentials")
        token = secrets.token_urlsafe(24)
        with self.lock:
            self.token_requests += 1
            self.tokens[token] = time.time() + float(self.token_lifetime)
        return Response(
            200,
            {"access_token": token, "expires_in": self.token_lifetime, "token_type": "bearer"},
        )

    def pay(self, request: Request) -> Response:
        refused = self._auth(request) or self._country_currency(request)
        if refused:
            return refused
        body = request.json()
        try:
            subscriber, txn = body["subscriber"], body["transaction"]
            currency = request.headers["x-currency"]
            if not (subscriber["currency"] == txn["currency"] == currency):
                return self.refuse(400, "currencies differ from X-Currency")
            if subscriber["country"] != "CD" or txn["country"] != "CD":
                return self.refuse(400, "country must be CD")
            if not isinstance(subscriber["msisdn"], str) or not MSISDN.match(subscriber["msisdn"]):
                return self.refuse(400, f"msisdn {subscriber['msisdn']!r}: 9 digits, no 243")
            if not isinstance(txn["amount"], int) or isinstance(txn["amount"], bool):
                return self.refuse(400, "amount must be a whole number")
            if txn["amount"] <= 0 or not txn["id"] or not body.get("reference"):
                return self.refuse(400, "amount, id and reference are required")
        except (KeyError, TypeError):
            return self.refuse(400, "body shape")
        with self.lock:
            if txn["id"] in self.transactions:
                return self.refuse(
                    400,
                    "duplicate transaction id",
                    {"status": {"code": "400", "message": "Duplicate", "success": False}},
                )
            code = self.immediate.get(subscriber["msisdn"])
            self.transactions[txn["id"]] = {
                "msisdn": subscriber["msisdn"],
                "amount": txn["amount"],
                "currency": currency,
                "enquiries": 0,
                "airtel_money_id": f"MP{secrets.token_hex(5).upper()}",
                "status": "TF" if code else "TIP",
                "code": code or "DP00800001006",
                "refunded": False,
            }
        answer = json.loads(json.dumps(ACCEPTED))
        answer["data"]["transaction"]["id"] = txn["id"]
        if code:
            answer["status"].update(response_code=code, success=False, message="FAILED")
            answer["data"]["transaction"]["status"] = "FAILED"
        return Response(200, answer)

    def _answered(self, record: dict) -> None:
        if record["status"] == "TIP":
            record["status"], record["code"] = self.outcomes.get(
                record["msisdn"], ("TS", "DP00800001001")
            )

    def _advance(self, record: dict) -> None:
        record["enquiries"] += 1
        if record["enquiries"] > self.enquiries_before_answer:
            self._answered(record)

    def enquiry(self, request: Request, txn: str) -> Response:
        refused = self._auth(request) or self._country_currency(request)
        if refused:
            return refused
        with self.lock:
            record = self.transactions.get(txn)
            if record is None:
                return Response(
                    404,
                    {"status": {"response_code": "DP00800001025", "success": False}},
                )
            if request.headers["x-currency"] != record["currency"]:
                return self.refuse(400, "enquiry X-Currency differs from the payment's")
            self._advance(record)
            return Response(
                200,
                {
                    "data": {
                        "transaction": {
                            "airtel_money_id": record["airtel_money_id"]
                            if record["status"] == "TS"
                            else None,
                            "id": txn,
                            "message": record["status"],
                            "status": record["status"],
                        }
                    },
                    "status": {
                        "code": "200",
                        "message": "SUCCESS",
                        "response_code": record["code"],
                        "success": True,
                    },
                },
            )

    def refund(self, request: Request) -> Response:
        refused = self._auth(request) or self._country_currency(request)
        if refused:
            return refused
        body = request.json() or {}
        money_id = (body.get("transaction") or {}).get("airtel_money_id")
        with self.lock:
            record = next(
                (r for r in self.transactions.values() if r["airtel_money_id"] == money_id), None
            )
            if record is None or record["status"] != "TS":
                return self.refuse(400, "refund of an unknown or unpaid transaction")
            if record["refunded"]:  # we never ask twice: that would be a double refund
                return self.refuse(
                    400,
                    "refund of an already refunded transaction",
                    {"data": {}, "status": {"message": "Already refunded", "success": False}},
                )
            record["refunded"] = True
            self.refunds.append({"airtel_money_id": money_id, "amount": record["amount"]})
        return Response(
            200,
            {
                "data": {"transaction": {"airtel_money_id": money_id, "status": "SUCCESS"}},
                "status": {"code": "200", "message": "SUCCESS", "success": True},
            },
        )

    def approve(self, txn: str) -> requests.Response | None:
        """The customer answers the prompt on the handset: the payment takes its final status
        (`outcomes`, by default TS) and, with a callback URL set, Airtel POSTs its callback there.
        Returns our answer to that callback."""
        with self.lock:
            record = self.transactions[txn]
            self._answered(record)
            status_code = "TS" if record["status"] == "TS" else "TF"
        if not self.callback_url:
            return None
        return requests.post(
            self.callback_url,
            data=self.callback_body(txn, status_code, hash_key=self.callback_hash_key),
            headers={"Content-Type": "application/json"},
            timeout=10,
        )

    def callback_body(self, txn: str, status_code: str = "TS", hash_key: str = "") -> bytes:
        """What Airtel POSTs to the callback URL (optionally with its HMAC `hash`)."""
        record = self.transactions[txn]
        transaction = {
            "id": txn,
            "message": "Paid" if status_code == "TS" else "Failed",
            "status_code": status_code,
            "airtel_money_id": record["airtel_money_id"],
        }
        body: dict = {"transaction": transaction}
        if hash_key:
            message = json.dumps(transaction, separators=(",", ":")).encode()
            body["hash"] = base64.b64encode(
                hmac.new(hash_key.encode(), message, hashlib.sha256).digest()
            ).decode()
        return json.dumps(body).encode()
