"""A faithful local Airtel Money Open API : collections, refunds and
disbursements (payouts).

Collections: a `reference` that is not 4–64 alphanumeric characters is refused (400) and recorded
as a violation, as Airtel's integrations report it. Callbacks carry the `hash` of Airtel's
callback authentication, made with the private key shown in the application's settings
(`callback_hash_key`); `callback_body(..., hash_key="")` leaves it out, as a forger would.

Disbursements: it holds the RSA private key of the public key Airtel publishes for PIN encryption
and decrypts every `pin` (PKCS#1 v1.5): one that is not the disbursement wallet's PIN is refused
the way Airtel does it (HTTP 200, `success` false, DP00900001013) and recorded as a violation. A
transaction id sent twice is a payout sent twice: refused (DP00900001017) and recorded as a
violation, as is a `reference` that is not 4–64 alphanumeric characters.
"""

import base64
import hashlib
import hmac
import json
import re
import secrets
import threading
import time

import requests
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.fakes.base import FakeProvider, Request, Response

MSISDN = re.compile(r"^(97|98|99)\d{7}$")
REFERENCE = re.compile(r"^[A-Za-z0-9]{4,64}$")
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
        self.callback_hash_key = "airtel-callback-private-key"
        self.route("POST", "/auth/oauth2/token", self.token)
        self.route("POST", "/merchant/v1/payments/", self.pay)
        self.route("GET", r"/standard/v1/payments/(?P<txn>[^/]+)", self.enquiry)
        self.route("POST", "/standard/v1/payments/refund", self.refund)
        # Disbursements: the wallet's PIN and the key pair of its encryption (1024-bit, as the
        # v1 key Airtel publishes); msisdn → response_code answered at once instead of success
        # (DP00900001006 or -000: in progress until `disbursement_enquiries_before_answer`
        # enquiries, then `disbursement_final` or TS); `disbursement_hold`: Airtel processes the
        # disbursement but answers only once `released` is set (after our timeout).
        self.disbursement_pin = "1234"
        self._pin_key = rsa.generate_private_key(public_exponent=65537, key_size=1024)
        self.disbursement_public_key = base64.b64encode(
            self._pin_key.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
        ).decode()
        self.disbursements: dict[str, dict] = {}
        self.disbursement_answers: dict[str, str] = {}
        self.disbursement_final: dict[str, tuple[str, str]] = {}
        self.disbursement_enquiries_before_answer = 1
        self.disbursement_hold = False
        self.released = threading.Event()
        self.route("POST", "/standard/v1/disbursements/", self.disburse)
        self.route("GET", r"/standard/v1/disbursements/(?P<txn>[^/]+)", self.disbursement_enquiry)

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
            reference = body["reference"]
            if not isinstance(reference, str) or not REFERENCE.match(reference):
                return self.refuse(400, f"reference {reference!r}: 4-64 alphanumerics")
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
                "reference": body["reference"],
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
            data=self.callback_body(txn, status_code),
            headers={"Content-Type": "application/json"},
            timeout=10,
        )

    def callback_body(
        self, txn: str, status_code: str = "TS", hash_key: str | None = None
    ) -> bytes:
        """What Airtel POSTs to the callback URL, with the HMAC `hash` of `hash_key` (by default
        the app settings' private key; "" for none)."""
        record = self.transactions[txn]
        transaction = {
            "id": txn,
            # Airtel CD writes its messages in French: accents reach the hashed JSON.
            "message": "Paiement réussi" if status_code == "TS" else "Échec du paiement",
            "status_code": status_code,
            "airtel_money_id": record["airtel_money_id"],
        }
        return self.signed(transaction, hash_key)

    def signed(self, transaction: dict, hash_key: str | None = None) -> bytes:
        """A callback body about `transaction` (any ids, known to Airtel or not), hashed as the
        public SDKs compute it: compact JSON, non-ASCII escaped (json.dumps default)."""
        key = self.callback_hash_key if hash_key is None else hash_key
        body: dict = {"transaction": transaction}
        if key:
            message = json.dumps(transaction, separators=(",", ":")).encode()
            body["hash"] = base64.b64encode(
                hmac.new(key.encode(), message, hashlib.sha256).digest()
            ).decode()
        return json.dumps(body).encode()

    # --- disbursements ------------------------------------------------------------------------
    @staticmethod
    def _disbursement_answer(code: str, state: str, record: dict | None, message: str) -> dict:
        return {
            "data": {
                "transaction": {
                    "reference_id": record["reference_id"] if record else None,
                    "airtel_money_id": record["airtel_money_id"] if record else None,
                    "id": record["id"] if record else None,
                    "status": state,
                }
            },
            "status": {
                "response_code": code,
                "code": "200" if code == "DP00900001001" else "400",
                "success": code in ("DP00900001001", "DP00900001006", "DP00900001000"),
                "result_code": "ESB000010",
                "message": message,
            },
        }

    def _pin_ok(self, pin) -> bool:
        try:
            clear = self._pin_key.decrypt(base64.b64decode(pin), padding.PKCS1v15()).decode()
        except (TypeError, ValueError):
            return False
        return clear == self.disbursement_pin

    def disburse(self, request: Request) -> Response:
        refused = self._auth(request) or self._country_currency(request)
        if refused:
            return refused
        body = request.json()
        try:
            payee, txn, pin = body["payee"], body["transaction"], body["pin"]
            msisdn, amount, txn_id = payee["msisdn"], txn["amount"], txn["id"]
            reference = body["reference"]
        except (KeyError, TypeError):
            return self.refuse(400, "disbursement: body shape")
        if not isinstance(msisdn, str) or not MSISDN.match(msisdn):
            return self.refuse(400, f"disbursement: msisdn {msisdn!r}: 9 digits, no 243")
        if type(amount) is not int or amount <= 0:
            return self.refuse(400, "disbursement: amount must be a whole number")
        if not isinstance(reference, str) or not REFERENCE.match(reference):
            return self.refuse(400, f"disbursement: reference {reference!r}: 4-64 alphanumerics")
        if not isinstance(txn_id, str) or not txn_id:
            return self.refuse(400, "disbursement: transaction.id")
        if not self._pin_ok(pin):
            return self.refuse(
                200,
                "disbursement: pin is not the wallet PIN encrypted with the PIN public key",
                self._disbursement_answer("DP00900001013", "TF", None, "Incorrect Encrypted Pin"),
            )
        with self.lock:
            if txn_id in self.disbursements:
                return self.refuse(
                    200,
                    f"disbursement {txn_id} sent twice",
                    self._disbursement_answer(
                        "DP00900001017", "", None, "Duplicate Transaction Id"
                    ),
                )
            code = self.disbursement_answers.get(msisdn, "DP00900001001")
            state = {"DP00900001001": "TS", "DP00900001006": "TIP", "DP00900001000": "TA"}
            record = {
                "id": txn_id,
                "msisdn": msisdn,
                "amount": amount,
                "currency": request.headers["x-currency"],
                "reference": reference,
                "reference_id": f"CI{secrets.token_hex(4).upper()}",
                "airtel_money_id": f"disbursement-{secrets.token_hex(6).upper()}",
                "status": state.get(code, "TF"),
                "code": code,
                "enquiries": 0,
            }
            self.disbursements[txn_id] = record
        if self.disbursement_hold:
            self.released.wait(timeout=30)
        return Response(200, self._disbursement_answer(code, record["status"], record, "done"))

    def paid_out(self, msisdn: str) -> int:
        """What Airtel paid to this wallet (successful disbursements), in whole units."""
        with self.lock:
            return sum(
                r["amount"]
                for r in self.disbursements.values()
                if r["msisdn"] == msisdn and r["status"] == "TS"
            )

    def disbursement_enquiry(self, request: Request, txn: str) -> Response:
        refused = self._auth(request) or self._country_currency(request)
        if refused:
            return refused
        with self.lock:
            record = self.disbursements.get(txn)
            if record is None:
                return Response(
                    404,
                    {"status": {"response_code": "DP00900001015", "success": False,
                                "message": "Transaction Not Found"}},
                )  # fmt: skip
            if request.headers["x-currency"] != record["currency"]:
                return self.refuse(400, "enquiry X-Currency differs from the disbursement's")
            record["enquiries"] += 1
            if (
                record["status"] in ("TIP", "TA")
                and record["enquiries"] > self.disbursement_enquiries_before_answer
            ):
                record["status"], record["code"] = self.disbursement_final.get(
                    record["msisdn"], ("TS", "DP00900001001")
                )
            return Response(
                200,
                self._disbursement_answer(record["code"], record["status"], record, "enquiry"),
            )
