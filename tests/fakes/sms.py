"""The SMS vendors, each as its documents describe it (messaging/providers/ cites them): Orange's
SMS API, Twilio's Messages API and Africa's Talking's SMS API. Each refuses, and records as a
violation, a request that breaks the vendor's rules, keeps the messages it took, and builds the
delivery reports the vendor would send, signed the vendor's way (Twilio) or not."""

import base64
import hashlib
import hmac
import json
import re
import secrets
from urllib.parse import parse_qs, unquote

from tests.fakes.base import FakeProvider, Request, Response

E164 = re.compile(r"^\+[1-9]\d{7,14}$")


def _form(request: Request) -> dict[str, str] | None:
    if not request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return None
    return {k: v[0] for k, v in parse_qs(request.body.decode(), keep_blank_values=True).items()}


def _basic(request: Request) -> tuple[str, str] | None:
    value = request.headers.get("authorization", "")
    if not value.startswith("Basic "):
        return None
    try:
        user, _, password = base64.b64decode(value[6:]).decode().partition(":")
    except ValueError:
        return None
    return user, password


class FakeOrangeSms(FakeProvider):
    """POST /oauth/v3/token (Basic client credentials, grant_type=client_credentials) and
    POST /smsmessaging/v1/outbound/{senderAddress}/requests (Bearer, JSON)."""

    def __init__(self, client_id="orange-sms-id", client_secret="orange-sms-secret"):
        super().__init__()
        self.client_id, self.client_secret = client_id, client_secret
        self.sender_address = "+243890000000"
        self.sender_names = {"CongoPay", "Boutique"}  # registered with Orange for the account
        self.tokens: set[str] = set()
        self.token_requests = 0
        self.messages: dict[str, dict] = {}  # Orange's id → the request
        self.route("POST", "/oauth/v3/token", self._token)
        self.route("POST", r"/smsmessaging/v1/outbound/(?P<sender>[^/]+)/requests", self._send)

    def _token(self, request: Request) -> Response:
        if _basic(request) != (self.client_id, self.client_secret):
            return self.refuse(401, "token: bad client credentials")
        if (_form(request) or {}).get("grant_type") != "client_credentials":
            return self.refuse(400, "token: grant_type must be client_credentials")
        token = secrets.token_urlsafe(16)
        with self.lock:
            self.tokens.add(token)
            self.token_requests += 1
        return Response(200, {"token_type": "Bearer", "access_token": token, "expires_in": "3600"})

    def expire_tokens(self) -> None:
        with self.lock:
            self.tokens.clear()

    def _send(self, request: Request, sender: str) -> Response:
        if self.bearer(request) not in self.tokens:
            return Response(401, {"code": 42, "message": "Expired credentials"})
        if not request.headers.get("content-type", "").startswith("application/json"):
            return self.refuse(400, "send: not JSON")
        body = (request.json() or {}).get("outboundSMSMessageRequest")
        if not isinstance(body, dict):
            return self.refuse(400, "send: no outboundSMSMessageRequest")
        sender_address = f"tel:{self.sender_address}"
        if unquote(sender) != sender_address or body.get("senderAddress") != sender_address:
            return self.refuse(400, f"send: sender {unquote(sender)} is not the account's")
        address = body.get("address", "")
        if not address.startswith("tel:") or not E164.match(address[4:]):
            return self.refuse(400, f"send: address {address!r} is not tel:+E.164")
        text = (body.get("outboundSMSTextMessage") or {}).get("message")
        if not text:
            return self.refuse(400, "send: no outboundSMSTextMessage.message")
        name = body.get("senderName")
        if name is not None and name not in self.sender_names:
            return Response(
                400,
                {
                    "requestError": {
                        "policyException": {
                            "messageId": "POL0001",
                            "text": "Policy error: %1",
                            "variables": [f"senderName {name} is not allowed"],
                        }
                    }
                },
            )
        orange_id = secrets.token_hex(12)
        with self.lock:
            self.messages[orange_id] = body
        return Response(
            201,
            {
                "outboundSMSMessageRequest": {
                    **body,
                    "resourceURL": f"{self.url}/smsmessaging/v1/outbound/{sender}/requests/{orange_id}",
                }
            },
        )

    @staticmethod
    def delivery_receipt(orange_id: str, status: str, address: str) -> bytes:
        return json.dumps(
            {
                "deliveryInfoNotification": {
                    "callbackData": orange_id,
                    "deliveryInfo": {"address": f"tel:{address}", "deliveryStatus": status},
                }
            }
        ).encode()


class FakeTwilio(FakeProvider):
    """POST /2010-04-01/Accounts/{AccountSid}/Messages.json (Basic SID:token, form-encoded)."""

    def __init__(self, account_sid="AC" + "0" * 31 + "1", auth_token="twilio-auth-token"):
        super().__init__()
        self.account_sid, self.auth_token = account_sid, auth_token
        self.from_ = "+15005550006"
        self.messages: dict[str, dict] = {}  # sid → the form
        self.route("POST", r"/2010-04-01/Accounts/(?P<sid>[^/]+)/Messages\.json", self._send)

    def _send(self, request: Request, sid: str) -> Response:
        if sid != self.account_sid or _basic(request) != (self.account_sid, self.auth_token):
            return Response(401, {"code": 20003, "message": "Authenticate", "status": 401})
        form = _form(request)
        if form is None:
            return self.refuse(400, "send: not form-encoded")
        if not E164.match(form.get("To", "")):
            return Response(
                400, {"code": 21211, "message": "The 'To' number is not valid.", "status": 400}
            )
        if form.get("From") != self.from_:
            return Response(400, {"code": 21606, "message": "Invalid From", "status": 400})
        if not form.get("Body"):
            return self.refuse(400, "send: no Body")
        callback = form.get("StatusCallback", "")
        if callback and not callback.startswith(("http://", "https://")):
            return self.refuse(400, "send: StatusCallback is not an absolute URL")
        message_sid = "SM" + secrets.token_hex(16)
        with self.lock:
            self.messages[message_sid] = form
        return Response(
            201,
            {
                "sid": message_sid,
                "account_sid": self.account_sid,
                "to": form["To"],
                "from": form["From"],
                "body": form["Body"],
                "status": "queued",
                "num_segments": "1",
                "error_code": None,
                "error_message": None,
                "api_version": "2010-04-01",
                "uri": f"/2010-04-01/Accounts/{sid}/Messages/{message_sid}.json",
            },
        )

    def status_callback(self, message_sid: str, status: str, error_code: str = "") -> tuple:
        """The request Twilio makes to the message's StatusCallback: (url, form, headers)."""
        form = self.messages[message_sid]
        url = form["StatusCallback"]
        params = {
            "AccountSid": self.account_sid,
            "ApiVersion": "2010-04-01",
            "From": form["From"],
            "MessageSid": message_sid,
            "MessageStatus": status,
            "SmsSid": message_sid,
            "SmsStatus": status,
            "To": form["To"],
        }
        if error_code:
            params["ErrorCode"] = error_code
        signed = url + "".join(k + params[k] for k in sorted(params))
        signature = base64.b64encode(
            hmac.new(self.auth_token.encode(), signed.encode(), hashlib.sha1).digest()
        ).decode()
        return url, params, {"HTTP_X_TWILIO_SIGNATURE": signature}


class FakeAfricasTalking(FakeProvider):
    """POST /version1/messaging (apiKey header, form-encoded username/to/message/from)."""

    def __init__(self, username="congopay", api_key="at-api-key"):
        super().__init__()
        self.username, self.api_key = username, api_key
        self.sender_ids = {"CONGOPAY"}
        self.messages: dict[str, dict] = {}  # ATXid_… → the form
        self.next_status: tuple[int, str] | None = None  # a recipient status to answer once
        self.route("POST", "/version1/messaging", self._send)

    def _send(self, request: Request) -> Response:
        if request.headers.get("apikey") != self.api_key:
            return Response(401, b"The supplied authentication is invalid")
        if "application/json" not in request.headers.get("accept", ""):
            return self.refuse(400, "send: Accept must be application/json")
        form = _form(request)
        if form is None or form.get("username") != self.username:
            return self.refuse(400, "send: not form-encoded, or another username")
        if not form.get("message"):
            return self.refuse(400, "send: no message")
        numbers = form.get("to", "").split(",")
        if len(numbers) != 1 or not E164.match(numbers[0]):
            return self.refuse(400, f"send: to {form.get('to')!r} is not one E.164 number")
        sender = form.get("from")
        if sender is not None and sender not in self.sender_ids:
            return self._answer(numbers[0], 402, "InvalidSenderId")
        with self.lock:
            scripted, self.next_status = self.next_status, None
        if scripted:
            return self._answer(numbers[0], *scripted)
        message_id = "ATXid_" + secrets.token_hex(16)
        with self.lock:
            self.messages[message_id] = form
        return Response(
            201,
            {
                "SMSMessageData": {
                    "Message": "Sent to 1/1 Total Cost: USD 0.0200",
                    "Recipients": [
                        {
                            "statusCode": 101,
                            "number": numbers[0],
                            "status": "Success",
                            "cost": "USD 0.0200",
                            "messageId": message_id,
                            "messageParts": 1,
                        }
                    ],
                }
            },
        )

    @staticmethod
    def _answer(number: str, code: int, status: str) -> Response:
        return Response(
            201,
            {
                "SMSMessageData": {
                    "Message": "Sent to 0/1 Total Cost: 0",
                    "Recipients": [
                        {
                            "statusCode": code,
                            "number": number,
                            "status": status,
                            "cost": "0",
                            "messageId": "None",
                        }
                    ],
                }
            },
        )

    def delivery_report(self, message_id: str, status: str, reason: str = "") -> dict:
        form = {
            "id": message_id,
            "status": status,
            "phoneNumber": self.messages[message_id]["to"],
            "networkCode": "63086",
            "retryCount": "0",
        }
        if reason:
            form["failureReason"] = reason
        return form
