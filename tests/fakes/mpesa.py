"""A faithful local M-Pesa OpenAPI, market vodacomDRC.

It holds the RSA private key of the portal's public key and decrypts every Bearer: the API key for
getSession, a live session id for every other call.

A new session becomes active only `activation_delay` seconds after getSession issued it (the real
one takes up to 30 s: M-Pesa's sample code sleeps 30 s, the session "will be invalid until it is").
Until then a call is answered exactly as with an invalid session, 401 INS-2, and is not processed:
no conversation id is used, nothing is paid or reversed. That is the provider's normal behaviour,
not a violation; such refusals are counted in `inactive_refusals` (path by path).

Answers carry the HTTP status of the portal's published response-code table: HTTP 401 is not only
a refused session (INS-2) but also INS-4 (user not active), INS-5 (cancelled by the customer) and
INS-6 (transaction failed) — the payment's own answer. `reversal_answer` scripts the INS code the
next reversals end with (the reversal is then not made).

B2C (payouts) is paid from its own shortcode (`b2c_shortcode`) and answers at once:
`b2c_answers` scripts the INS code per recipient ("hold": paid, but answered only once `released`
is set). A conversation id sent twice is a payout sent twice: refused (INS-10) and recorded as a
violation. The status query must name the shortcode the transaction was made from, and answers
as the portal's Query Transaction Status API documents it: output_ResponseCode,
output_ResponseDesc, output_ResponseTransactionStatus, output_ConversationID,
output_ThirdPartyConversationID, output_OriginalTransactionID (the M-Pesa transaction id) and
output_Reversed — no output_TransactionID."""

import base64
import re
import secrets
import threading
import time

from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tests.fakes.base import FakeProvider, Request, Response

PREFIX = "/openapi/ipg/v2/vodacomDRC"
MSISDN = re.compile(r"^243(81|82|83)\d{7}$")
# HTTP status of each INS code in the portal's table (anything else: 400).
HTTP_STATUS = {"INS-0": 200, "INS-1": 500, "INS-2": 401, "INS-4": 401, "INS-5": 401, "INS-6": 401,
               "INS-9": 408, "INS-10": 409, "INS-16": 503, "INS-2006": 422}  # fmt: skip
# output_ResponseTransactionStatus the query reports for a C2B that ended with a code.
QUERY_STATUS = {"INS-0": "Completed", "INS-5": "Cancelled", "INS-9": "Expired"}


class FakeMpesa(FakeProvider):
    def __init__(
        self,
        api_key="mpesa-api-key",
        shortcode="000123",
        activation_delay: float = 0.3,
        b2c_shortcode="000456",
    ) -> None:
        super().__init__()
        self.api_key, self.shortcode, self.b2c_shortcode = api_key, shortcode, b2c_shortcode
        self.activation_delay = activation_delay
        self._private = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.public_key = base64.b64encode(
            self._private.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
        ).decode()
        self.sessions: dict[str, float] = {}  # session id → time.monotonic() it becomes active
        self.session_requests = 0
        self.inactive_refusals: list[str] = []  # paths of calls refused: session not active yet
        self.conversation_ids: set[str] = set()
        self.transactions: dict[str, dict] = {}  # by ThirdPartyConversationID
        # msisdn → INS code the customer's PIN entry ends with; "hold" keeps the HTTP answer
        # until release() (the customer is slow) and the payment then completes.
        self.pin_entry: dict[str, str] = {}
        self.released = threading.Event()
        self.reversals: list[dict] = []
        self.reversal_answer: str = ""  # e.g. "INS-6": the reversal fails with that code
        # The query answers Completed with an empty output_OriginalTransactionID (seen in a run).
        self.query_answers_no_transaction_id = False
        self.route("GET", f"{PREFIX}/getSession/", self.get_session)
        self.route("POST", f"{PREFIX}/c2bPayment/singleStage/", self.c2b)
        self.route("GET", f"{PREFIX}/queryTransactionStatus/", self.query)
        self.route("PUT", f"{PREFIX}/reversal/", self.reversal)
        self.b2c_answers: dict[str, str] = {}  # msisdn → INS code (default INS-0), or "hold"
        self.route("POST", f"{PREFIX}/b2cPayment/", self.b2c)

    def _decrypt_bearer(self, request: Request) -> str | None:
        token = self.bearer(request)
        if not token:
            return None
        try:
            return self._private.decrypt(base64.b64decode(token), padding.PKCS1v15()).decode()
        except ValueError:
            return None

    def _session(self, request: Request) -> Response | None:
        if not request.headers.get("origin"):
            return self.refuse(400, "Origin header missing")
        session = self._decrypt_bearer(request)
        if session is None:
            return self.refuse(401, "Bearer is not RSA-encrypted with the public key")
        with self.lock:
            active_at = self.sessions.get(session)
            inactive = active_at is not None and time.monotonic() < active_at
            if inactive:
                self.inactive_refusals.append(request.path)
        if active_at is None or inactive:
            return Response(
                401, {"output_ResponseCode": "INS-2", "output_ResponseDesc": "Invalid session"}
            )
        return None

    def sessions_used(self, endpoint: str) -> list[str]:
        """The session id of every call to {PREFIX}/{endpoint}/, in order (for tests)."""
        with self.lock:
            calls = [r for r in self.log if r.path == f"{PREFIX}/{endpoint}/"]
        return [self._decrypt_bearer(r) for r in calls]

    def drop_sessions(self) -> None:
        with self.lock:
            self.sessions.clear()

    def _unique_conversation(self, value) -> Response | None:
        if not isinstance(value, str) or not value or len(value) > 40:
            return self.refuse(400, "input_ThirdPartyConversationID missing or too long")
        with self.lock:
            if value in self.conversation_ids:
                return self.refuse(
                    409, "duplicate ThirdPartyConversationID", {"output_ResponseCode": "INS-10"}
                )
            self.conversation_ids.add(value)
        return None

    def get_session(self, request: Request) -> Response:
        if not request.headers.get("origin"):
            return self.refuse(400, "Origin header missing")
        if self._decrypt_bearer(request) != self.api_key:
            return self.refuse(401, "getSession: Bearer is not the encrypted API key")
        session = secrets.token_hex(16)
        with self.lock:
            self.sessions[session] = time.monotonic() + self.activation_delay
            self.session_requests += 1
        return Response(
            200,
            {"output_ResponseCode": "INS-0", "output_ResponseDesc": "Request processed successfully",
             "output_SessionID": session},
        )  # fmt: skip

    def c2b(self, request: Request) -> Response:
        refused = self._session(request)
        if refused:
            return refused
        body = request.json() or {}
        checks = [
            (isinstance(body.get("input_Amount"), str) and body["input_Amount"].isdigit(),
             "input_Amount must be a string of whole units"),
            (body.get("input_Country") == "DRC", "input_Country must be DRC"),
            (body.get("input_Currency") in ("USD", "CDF"), "input_Currency"),
            (isinstance(body.get("input_CustomerMSISDN"), str)
             and bool(MSISDN.match(body["input_CustomerMSISDN"])), "input_CustomerMSISDN 243XXXXXXXXX"),
            (body.get("input_ServiceProviderCode") == self.shortcode, "input_ServiceProviderCode"),
            (isinstance(body.get("input_TransactionReference"), str)
             and 0 < len(body["input_TransactionReference"]) <= 20, "input_TransactionReference ≤ 20"),
            (bool(body.get("input_PurchasedItemsDesc")), "input_PurchasedItemsDesc"),
        ]  # fmt: skip
        for ok, message in checks:
            if not ok:
                return self.refuse(400, message)
        conversation = body.get("input_ThirdPartyConversationID")
        refused = self._unique_conversation(conversation)
        if refused:
            return refused
        msisdn = body["input_CustomerMSISDN"]
        code = self.pin_entry.get(msisdn, "INS-0")
        record = {
            "amount": int(body["input_Amount"]),
            "currency": body["input_Currency"],
            "msisdn": msisdn,
            "transaction_id": secrets.token_hex(5).upper(),
            "status": "Pending",
            "reversed": 0,
        }
        with self.lock:
            self.transactions[conversation] = record
        if code == "hold":
            self.released.wait(timeout=30)
            code = "INS-0"
        record["status"] = QUERY_STATUS.get(code, "Failed")
        return Response(
            HTTP_STATUS.get(code, 400),
            {"output_ResponseCode": code, "output_ResponseDesc": "done",
             "output_TransactionID": record["transaction_id"],
             "output_ConversationID": secrets.token_hex(8),
             "output_ThirdPartyConversationID": conversation},
        )  # fmt: skip

    def query(self, request: Request) -> Response:
        refused = self._session(request)
        if refused:
            return refused
        q = request.query
        if q.get("input_Country") != "DRC" or q.get("input_ServiceProviderCode") not in (
            self.shortcode,
            self.b2c_shortcode,
        ):
            return self.refuse(400, "query: input_Country / input_ServiceProviderCode")
        refused = self._unique_conversation(q.get("input_ThirdPartyConversationID"))
        if refused:
            return refused
        reference = q.get("input_QueryReference")
        with self.lock:
            record = self.transactions.get(reference) or next(
                (r for r in self.transactions.values() if r["transaction_id"] == reference), None
            )
        if record is None:
            return Response(
                404, {"output_ResponseCode": "INS-14", "output_ResponseDesc": "Not found"}
            )
        if record.get("shortcode", self.shortcode) != q["input_ServiceProviderCode"]:
            return self.refuse(400, "query: another shortcode than the transaction's")
        # The portal's Query Transaction Status answer: the M-Pesa transaction id is
        # output_OriginalTransactionID (no output_TransactionID), beside output_Reversed.
        with self.lock:
            answer = {
                "output_ResponseCode": "INS-0",
                "output_ResponseDesc": "Request processed successfully",
                "output_ResponseTransactionStatus": record["status"],
                "output_ConversationID": secrets.token_hex(16),
                "output_ThirdPartyConversationID": q["input_ThirdPartyConversationID"],
                "output_OriginalTransactionID": record["transaction_id"],
                "output_Reversed": "True" if record.get("reversed") else "False",
            }
            if self.query_answers_no_transaction_id:
                answer["output_OriginalTransactionID"] = ""
        return Response(200, answer)

    def reversal(self, request: Request) -> Response:
        refused = self._session(request)
        if refused:
            return refused
        body = request.json() or {}
        if (
            body.get("input_Country") != "DRC"
            or body.get("input_ServiceProviderCode") != self.shortcode
        ):
            return self.refuse(400, "reversal: input_Country / input_ServiceProviderCode")
        refused = self._unique_conversation(body.get("input_ThirdPartyConversationID"))
        if refused:
            return refused
        amount = body.get("input_ReversalAmount")
        if not isinstance(amount, str) or not amount.isdigit():
            return self.refuse(400, "input_ReversalAmount must be a string of whole units")
        with self.lock:
            record = next(
                (r for r in self.transactions.values()
                 if r["transaction_id"] == body.get("input_TransactionID")), None,
            )  # fmt: skip
            if record is None or record["status"] != "Completed":
                return self.refuse(400, "reversal of an unknown or unpaid transaction")
            if record["reversed"] + int(amount) > record["amount"]:
                return Response(
                    400, {"output_ResponseCode": "INS-15", "output_ResponseDesc": "Invalid amount"}
                )
            if self.reversal_answer:
                code = self.reversal_answer
                return Response(
                    HTTP_STATUS.get(code, 400),
                    {"output_ResponseCode": code, "output_ResponseDesc": "Reversal failed"},
                )
            record["reversed"] += int(amount)
            self.reversals.append(
                {"transaction_id": record["transaction_id"], "amount": int(amount)}
            )
        return Response(
            200,
            {"output_ResponseCode": "INS-0", "output_ResponseDesc": "Reversed",
             "output_TransactionID": secrets.token_hex(5).upper()},
        )  # fmt: skip

    def b2c(self, request: Request) -> Response:
        refused = self._session(request)
        if refused:
            return refused
        body = request.json() or {}
        checks = [
            (isinstance(body.get("input_Amount"), str) and body["input_Amount"].isdigit()
             and int(body["input_Amount"]) > 0, "b2c: input_Amount must be a string of whole units"),
            (body.get("input_Country") == "DRC", "b2c: input_Country must be DRC"),
            (body.get("input_Currency") in ("USD", "CDF"), "b2c: input_Currency"),
            (isinstance(body.get("input_CustomerMSISDN"), str)
             and bool(MSISDN.match(body["input_CustomerMSISDN"])), "b2c: input_CustomerMSISDN 243XXXXXXXXX"),
            (body.get("input_ServiceProviderCode") == self.b2c_shortcode,
             "b2c: input_ServiceProviderCode must be the B2C shortcode"),
            (isinstance(body.get("input_TransactionReference"), str)
             and 0 < len(body["input_TransactionReference"]) <= 20, "b2c: input_TransactionReference ≤ 20"),
            (bool(body.get("input_PaymentItemsDesc")), "b2c: input_PaymentItemsDesc"),
        ]  # fmt: skip
        for ok, message in checks:
            if not ok:
                return self.refuse(400, message)
        conversation = body.get("input_ThirdPartyConversationID")
        with self.lock:
            if conversation in self.transactions:
                return self.refuse(
                    409, f"b2c {conversation} sent twice", {"output_ResponseCode": "INS-10"}
                )
        refused = self._unique_conversation(conversation)
        if refused:
            return refused
        msisdn = body["input_CustomerMSISDN"]
        code = self.b2c_answers.get(msisdn, "INS-0")
        record = {
            "type": "b2c",
            "shortcode": self.b2c_shortcode,
            "amount": int(body["input_Amount"]),
            "currency": body["input_Currency"],
            "msisdn": msisdn,
            "transaction_id": secrets.token_hex(5).upper(),
            "status": "Completed" if code in ("INS-0", "hold") else "Failed",
            "reversed": 0,
        }
        with self.lock:
            self.transactions[conversation] = record
        if code == "hold":
            self.released.wait(timeout=30)
            code = "INS-0"
        return Response(
            HTTP_STATUS.get(code, 400),
            {"output_ResponseCode": code, "output_ResponseDesc": "done",
             "output_TransactionID": record["transaction_id"],
             "output_ConversationID": secrets.token_hex(8),
             "output_ThirdPartyConversationID": conversation},
        )  # fmt: skip

    def paid_out(self, msisdn: str) -> int:
        """What M-Pesa paid to this customer by B2C (completed), in whole units."""
        with self.lock:
            return sum(
                r["amount"]
                for r in self.transactions.values()
                if r.get("type") == "b2c" and r["msisdn"] == msisdn and r["status"] == "Completed"
            )

    def wait_started(self, timeout: float = 10) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self.transactions:
            time.sleep(0.05)
