"""A local CyberSource: the hosted page's signature rules (and its documented locale codes), the
Transaction Search and the "Refund a Payment" REST APIs with their HTTP Signature authentication
as CyberSource's SDKs compute it, recomputed on every call, and the media type each endpoint
answers (an Accept that does not allow it gets 406). Money rule: the refunds of a payment never
exceed it (an over-refund is a violation)."""

import base64
import hashlib
import hmac
import re
import secrets
import threading
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

from payments.providers import secure_acceptance
from tests.fakes.base import FakeProvider, Request, Response

SIGNATURE = re.compile(r'(\w+)="([^"]*)"')
# HTTP Signature as CyberSource's SDKs sign it: `request-target`, no parentheses.
SIGNED_HEADERS = "host date request-target digest v-c-merchant-id"
# Locale codes of Secure Acceptance's "Checkout Language Localization" table (a few of them).
LOCALES = {"en-us", "en-gb", "fr-fr", "fr-ca", "es-es", "pt-br", "de-de", "ar-xn", "zh-cn"}
REPLY_DECISIONS = {"accept": ("ACCEPT", "100"), "decline": ("DECLINE", "203"),
                   "error": ("ERROR", "150"), "cancel": ("CANCEL", "")}  # fmt: skip


class FakeCyberSource(FakeProvider):
    def __init__(self, *, secret_key: str, access_key: str, profile_id: str) -> None:
        super().__init__()
        self.secret_key, self.access_key, self.profile_id = secret_key, access_key, profile_id
        self.merchant_id = "dr_congo_shop"
        self.key_id = "5d3b1f4e-key-serial"
        self.shared_secret = base64.b64encode(secrets.token_bytes(32)).decode()
        self.transactions: list[dict] = []
        self.uuids: set[str] = set()
        self.search_lag = 0  # searches answering nothing before results show up
        self.searches = 0
        # How the next refunds are answered: "accept", "refuse" (400 ACCOUNT_NOT_ALLOWED_CREDIT),
        # "decline" / "invalid" (201 DECLINED / INVALID_REQUEST: no credit), "server_error" (502
        # after recording the credit), "hang" (recorded, answered too late).
        self.refund_mode = "accept"
        self.refunded: dict[str, str] = {}  # refund transaction id → payment id
        self.released = threading.Event()
        self.route("POST", "/tss/v2/searches", self.search)
        self.route("POST", r"/pts/v2/payments/(?P<payment_id>[^/]+)/refunds", self.refund)

    # --- the hosted page ----------------------------------------------------------------------
    def pay(self, params: dict[str, str], outcome: str = "accept") -> dict[str, str]:
        """The customer pays on the hosted page: the request is checked like CyberSource does and
        the signed reply the browser posts back is returned."""
        secure_acceptance.verify(params, self.secret_key)
        assert params["access_key"] == self.access_key and params["profile_id"] == self.profile_id
        assert re.match(r"^\d+\.\d{2}$", params["amount"]) and params["transaction_type"] == "sale"
        assert params["locale"] in LOCALES, f"locale {params['locale']!r} is no documented code"
        signed_at = secure_acceptance.parse_signed_date_time(params["signed_date_time"])
        assert abs(datetime.now(UTC) - signed_at) < timedelta(minutes=15)
        assert params["transaction_uuid"] not in self.uuids, "reason 104: duplicate uuid"
        self.uuids.add(params["transaction_uuid"])
        decision, reason = REPLY_DECISIONS[outcome]
        transaction_id = "".join(secrets.choice("0123456789") for _ in range(22))
        if decision != "CANCEL":
            self.transactions.append(
                {
                    "id": transaction_id,
                    "submitTimeUtc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "clientReferenceInformation": {"code": params["reference_number"]},
                    "applicationInformation": {
                        "reasonCode": reason,
                        "rCode": "1" if decision == "ACCEPT" else "0",
                        "applications": [{"name": "ics_auth", "rCode": "1" if decision == "ACCEPT" else "0"}],
                    },
                    "orderInformation": {
                        "amountDetails": {"totalAmount": params["amount"], "currency": params["currency"]}
                    },
                }
            )  # fmt: skip
        reply = {
            "decision": decision,
            "reason_code": reason,
            "transaction_id": transaction_id,
            "req_reference_number": params["reference_number"],
            "req_transaction_uuid": params["transaction_uuid"],
            "req_amount": params["amount"],
            "req_currency": params["currency"],
            "signed_date_time": secure_acceptance.signed_date_time(),
        }
        reply["signed_field_names"] = ",".join([*reply, "signed_field_names"])
        reply["signature"] = secure_acceptance.sign(reply, self.secret_key)
        return reply

    # --- Transaction Search -------------------------------------------------------------------
    def _check_signature(self, request: Request) -> Response | None:
        h = request.headers
        if h.get("v-c-merchant-id") != self.merchant_id:
            return self.refuse(401, "v-c-merchant-id")
        if h.get("host") != self.host:
            return self.refuse(401, "Host header differs from the host called")
        try:
            date = parsedate_to_datetime(h.get("date", ""))
        except (TypeError, ValueError):
            return self.refuse(401, "Date header is not RFC 7231")
        if date.tzinfo is None or abs(datetime.now(UTC) - date) > timedelta(minutes=5):
            return self.refuse(401, "Date header too far from now")
        expected_digest = (
            "SHA-256=" + base64.b64encode(hashlib.sha256(request.body).digest()).decode()
        )
        if h.get("digest") != expected_digest:
            return self.refuse(401, "Digest is not SHA-256 of the body")
        parts = dict(SIGNATURE.findall(h.get("signature", "")))
        if parts.get("keyid") != self.key_id or parts.get("algorithm") != "HmacSHA256":
            return self.refuse(401, "Signature keyid/algorithm")
        if parts.get("headers") != SIGNED_HEADERS:
            return self.refuse(401, "Signature headers list")
        lines = []
        for name in parts["headers"].split(" "):
            value = (
                f"{request.method.lower()} {request.path}"
                if name == "request-target"
                else h.get(name, "")
            )
            lines.append(f"{name}: {value}")
        key = base64.b64decode(self.shared_secret)
        expected = base64.b64encode(
            hmac.new(key, "\n".join(lines).encode(), hashlib.sha256).digest()
        ).decode()
        if not hmac.compare_digest(expected, parts.get("signature", "")):
            return self.refuse(401, "HTTP Signature does not verify")
        return None

    def _accepts(self, request: Request, media: str) -> Response | None:
        """406 unless the request's Accept allows the media type the endpoint answers."""
        accepted = {
            part.split(";")[0].strip().lower()
            for part in request.headers.get("accept", "").split(",")
        }
        if accepted & {media, "*/*", media.split("/")[0] + "/*"}:
            return None
        return self.refuse(406, f"Accept {request.headers.get('accept')!r}: this answers {media}")

    def refunds_of(self, payment_id: str) -> list[dict]:
        with self.lock:
            return [t for t in self.transactions if self.refunded.get(t["id"]) == payment_id]

    def refund(self, request: Request, payment_id: str) -> Response:
        refused = self._check_signature(request) or self._accepts(request, "application/hal+json")
        if refused:
            return refused
        body = request.json()
        try:
            code = body["clientReferenceInformation"]["code"]
            amounts = body["orderInformation"]["amountDetails"]
            amount, currency = amounts["totalAmount"], amounts["currency"]
        except (KeyError, TypeError):
            return self.refuse(
                400, "refund body", {"status": "INVALID_REQUEST", "reason": "MISSING_FIELD"}
            )
        if not (isinstance(code, str) and 0 < len(code) <= 50):
            return self.refuse(
                400,
                "clientReferenceInformation.code",
                {"status": "INVALID_REQUEST", "reason": "INVALID_DATA"},
            )
        if not (
            isinstance(amount, str) and re.fullmatch(r"\d+\.\d{2}", amount)
        ) or not re.fullmatch(r"[A-Z]{3}", str(currency)):
            return self.refuse(
                400,
                "refund amount or currency format",
                {"status": "INVALID_REQUEST", "reason": "INVALID_DATA"},
            )
        with self.lock:
            payment = next((t for t in self.transactions if t["id"] == payment_id), None)
            if payment is None or payment["applicationInformation"]["reasonCode"] not in (
                "100",
                "110",
            ):
                return self.refuse(
                    404, "refund of an unknown or unpaid payment", {"status": "NOT_FOUND"}
                )
            paid = payment["orderInformation"]["amountDetails"]
            if currency != paid["currency"]:
                return self.refuse(
                    400,
                    "refund currency differs from the payment",
                    {"status": "INVALID_REQUEST", "reason": "INVALID_DATA"},
                )
            if any(t["clientReferenceInformation"]["code"] == code for t in self.transactions):
                return self.refuse(
                    400,
                    "refund sent twice",
                    {"status": "INVALID_REQUEST", "reason": "DUPLICATE_REQUEST"},
                )
            cents = lambda value: int(value.replace(".", ""))  # noqa: E731
            given_back = sum(
                cents(t["orderInformation"]["amountDetails"]["totalAmount"])
                for t in self.refunds_of(payment_id)
            )
            if given_back + cents(amount) > cents(paid["totalAmount"]):
                return self.refuse(
                    400,
                    "refunds exceed the payment",
                    {"status": "INVALID_REQUEST", "reason": "INVALID_AMOUNT"},
                )
            mode = self.refund_mode
            if mode == "refuse":
                return Response(
                    400,
                    {
                        "status": "INVALID_REQUEST",
                        "reason": "ACCOUNT_NOT_ALLOWED_CREDIT",
                        "message": "Declined - The account does not accept credits",
                    },
                )
            refund_id = "".join(secrets.choice("0123456789") for _ in range(22))
            if mode in ("decline", "invalid"):
                # Answered 201 all the same, refusing the credit: nothing is given back.
                status, reason = (
                    ("DECLINED", "PROCESSOR_DECLINED")
                    if mode == "decline"
                    else ("INVALID_REQUEST", "INVALID_DATA")
                )
                self.transactions.append(
                    {
                        "id": refund_id,
                        "submitTimeUtc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                        "clientReferenceInformation": {"code": code},
                        "applicationInformation": {
                            "reasonCode": "233" if mode == "decline" else "102",
                            "rCode": "0",
                            "applications": [{"name": "ics_credit", "rCode": "0"}],
                        },
                        "orderInformation": {
                            "amountDetails": {"totalAmount": amount, "currency": currency}
                        },
                    }
                )
                return Response(
                    201,
                    {
                        "id": refund_id,
                        "status": status,
                        "submitTimeUtc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                        "clientReferenceInformation": {"code": code},
                        "errorInformation": {
                            "reason": reason,
                            "message": "Decline - General decline of the card.",
                        },
                    },
                )
            self.refunded[refund_id] = payment_id
            self.transactions.append(
                {
                    "id": refund_id,
                    "submitTimeUtc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    "clientReferenceInformation": {"code": code},
                    "applicationInformation": {
                        "reasonCode": "100",
                        "rCode": "1",
                        "applications": [{"name": "ics_credit", "rCode": "1"}],
                    },
                    "orderInformation": {
                        "amountDetails": {"totalAmount": amount, "currency": currency}
                    },
                }
            )
        if mode == "hang":
            self.released.wait(30)
        if mode == "server_error":
            return Response(502, {"status": "SERVER_ERROR", "reason": "PROCESSOR_TIMEOUT"})
        return Response(
            201,
            {
                "id": refund_id,
                "status": "PENDING",
                "submitTimeUtc": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
                "clientReferenceInformation": {"code": code},
                "refundAmountDetails": {"refundAmount": amount, "currency": currency},
            },
        )

    def search(self, request: Request) -> Response:
        refused = self._check_signature(request) or self._accepts(request, "application/json")
        if refused:
            return refused
        body = request.json()
        if not isinstance(body, dict) or not {"query", "limit", "offset", "timezone"} <= set(body):
            return self.refuse(400, "search body")
        match = re.fullmatch(r"clientReferenceInformation\.code:(\S+)", body["query"])
        if not match:
            return self.refuse(400, "unsupported query")
        with self.lock:
            self.searches += 1
            lagging = self.searches <= self.search_lag
            found = [] if lagging else [
                t for t in self.transactions if t["clientReferenceInformation"]["code"] == match.group(1)
            ]  # fmt: skip
        return Response(
            201,
            {"id": secrets.token_hex(8), "save": False, "totalCount": len(found),
             "_embedded": {"transactionSummaries": found}},
        )  # fmt: skip
