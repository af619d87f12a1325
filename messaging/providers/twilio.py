"""Twilio's Messages API (twilio.com/docs/messaging/api/message-resource), as documented and as
its Python library (twilio-python) sends it:

- a message: POST {base}/2010-04-01/Accounts/{AccountSid}/Messages.json, HTTP Basic with the
  account SID and auth token, form-encoded `To`, `From`, `Body` and `StatusCallback` → 201 with
  the message resource (`sid` "SM…", `status` queued or accepted); a refusal is 4xx with
  `{"code", "message", "status"}`;
- status callbacks: POST to StatusCallback, form-encoded `MessageSid`, `MessageStatus` (queued,
  sending, sent, delivered, undelivered, failed, …), `ErrorCode`, signed in the
  `X-Twilio-Signature` header: base64 of HMAC-SHA1, keyed with the auth token, of the full URL
  followed by each POST parameter's name and value sorted by name (twilio.com/docs/usage/security;
  twilio-python's RequestValidator, which also accepts the URL without an https port)."""

import base64
import hashlib
import hmac
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings

from messaging.providers import http
from messaging.providers.base import (
    CallbackRefused,
    DeliveryReport,
    IncomingCallback,
    OutgoingSms,
    SmsAccepted,
    SmsRejected,
)

DELIVERED = {"delivered", "read"}
FAILED = {"undelivered", "failed", "canceled"}


def signature(auth_token: str, url: str, params: dict[str, str]) -> str:
    data = url + "".join(f"{name}{params[name]}" for name in sorted(params))
    digest = hmac.new(auth_token.encode(), data.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode()


def signature_valid(auth_token: str, url: str, params: dict[str, str], given: str) -> bool:
    candidates = {url}
    split = urlsplit(url)
    if split.scheme == "https" and split.port:
        candidates.add(urlunsplit(split._replace(netloc=split.hostname or "")))
    return bool(given) and any(
        hmac.compare_digest(signature(auth_token, candidate, params).encode(), given.encode())
        for candidate in candidates
    )


class TwilioSms:
    name = "twilio"

    def send(self, sms: OutgoingSms) -> SmsAccepted:
        form = {"To": sms.to, "From": settings.TWILIO_FROM, "Body": sms.body}
        if sms.status_callback_url:
            form["StatusCallback"] = sms.status_callback_url
        answer = http.post(
            f"{settings.TWILIO_BASE_URL}/2010-04-01/Accounts/{settings.TWILIO_ACCOUNT_SID}"
            "/Messages.json",
            what="twilio sms",
            ref=sms.reference,
            auth=(settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN),
            headers={"Accept": "application/json"},
            data=form,
        )
        body = http.json_object(answer, "twilio sms")
        if answer.status_code not in (200, 201) or not body.get("sid"):
            raise SmsRejected(
                f"twilio sms: HTTP {answer.status_code} {body.get('code', '')} "
                f"{body.get('message', '')}".strip()
            )
        return SmsAccepted(vendor_id=str(body["sid"]))

    def delivery_reports(self, callback: IncomingCallback) -> list[DeliveryReport]:
        if not settings.TWILIO_AUTH_TOKEN or not signature_valid(
            settings.TWILIO_AUTH_TOKEN,
            callback.url,
            callback.form,
            callback.headers.get("x-twilio-signature", ""),
        ):
            raise CallbackRefused("X-Twilio-Signature does not match")
        vendor_id = callback.form.get("MessageSid") or callback.form.get("SmsSid")
        status = callback.form.get("MessageStatus") or callback.form.get("SmsStatus") or ""
        if not vendor_id or not status:
            raise CallbackRefused("no MessageSid or MessageStatus")
        if status in DELIVERED:
            return [DeliveryReport(vendor_id, "delivered")]
        if status in FAILED:
            error = callback.form.get("ErrorCode", "")
            return [DeliveryReport(vendor_id, "failed", f"{status} {error}".strip())]
        return [DeliveryReport(vendor_id, "sent", status)]
