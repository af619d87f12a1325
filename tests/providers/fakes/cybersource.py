"""A local CyberSource: the hosted page's signature rules (providers.md §1) and the Transaction
Search REST API with its HTTP Signature authentication, recomputed on every call."""

import base64
import hashlib
import hmac
import re
import secrets
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime

from payments.providers import secure_acceptance
from tests.providers.fakes.base import FakeProvider, Request, Response

SIGNATURE = re.compile(r'(\w+)="([^"]*)"')
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
        self.route("POST", "/tss/v2/searches", self.search)

    # --- the hosted page ----------------------------------------------------------------------
    def pay(self, params: dict[str, str], outcome: str = "accept") -> dict[str, str]:
        """The customer pays on the hosted page: the request is checked like CyberSource does and
        the signed reply the browser posts back is returned."""
        secure_acceptance.verify(params, self.secret_key)
        assert params["access_key"] == self.access_key and params["profile_id"] == self.profile_id
        assert re.match(r"^\d+\.\d{2}$", params["amount"]) and params["transaction_type"] == "sale"
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
        if parts.get("headers") != "host date (request-target) digest v-c-merchant-id":
            return self.refuse(401, "Signature headers list")
        lines = []
        for name in parts["headers"].split(" "):
            value = (
                f"{request.method.lower()} {request.path}"
                if name == "(request-target)"
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

    def search(self, request: Request) -> Response:
        refused = self._check_signature(request)
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
