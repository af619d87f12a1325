"""Orange's SMS API ("SMS Africa and Middle East", developer.orange.com/apis/sms-cd), as its
getting-started guide and API reference document it:

- a token: POST {base}/oauth/v3/token, HTTP Basic with the application's client id and secret,
  form `grant_type=client_credentials` → `{"token_type": "Bearer", "access_token", "expires_in"}`
  (one hour);
- a message: POST {base}/smsmessaging/v1/outbound/{senderAddress}/requests (the sender address
  "tel:+243…" of the country's offer, URL-encoded), Bearer token, JSON
  `{"outboundSMSMessageRequest": {"address": "tel:+243…", "senderAddress": "tel:+243…",
  "senderName": "…", "outboundSMSTextMessage": {"message": "…"}}}` → 201 with the request echoed
  and its `resourceURL`, whose last part is the message's id at Orange;
- delivery receipts ("Real time SMS DR", an address registered with Orange): POST
  `{"deliveryInfoNotification": {"callbackData": <the message's id>, "deliveryInfo": {"address",
  "deliveryStatus"}}}`, where DeliveredToTerminal is final and delivered, DeliveryImpossible final
  and failed, the others (DeliveredToNetwork, MessageWaiting, DeliveryUncertain) on the way.

Symfony's Notifier bridge (OrangeSmsTransport) sends the same requests. The sender name is one
Orange registered for the account (letters and digits: the SDKs URL-encode it, which leaves such
a name unchanged)."""

import hmac
import json
from urllib.parse import quote

from django.conf import settings

from messaging.providers import http
from messaging.providers.base import (
    CallbackRefused,
    DeliveryReport,
    IncomingCallback,
    OutgoingSms,
    SmsAccepted,
    SmsRejected,
    SmsTemporaryError,
)

DELIVERED = {"DeliveredToTerminal"}
FAILED = {"DeliveryImpossible"}


class OrangeSms:
    name = "orange"

    def _token_key(self) -> tuple:
        return ("orange-sms", settings.ORANGE_SMS_BASE_URL, settings.ORANGE_SMS_CLIENT_ID)

    def _fetch_token(self) -> tuple[str, float]:
        return http.client_credentials_token(
            f"{settings.ORANGE_SMS_BASE_URL}/oauth/v3/token",
            what="orange sms token",
            default_lifetime=3600,
            auth=(settings.ORANGE_SMS_CLIENT_ID, settings.ORANGE_SMS_CLIENT_SECRET),
            data={"grant_type": "client_credentials"},
            headers={"Accept": "application/json"},
        )

    def send(self, sms: OutgoingSms) -> SmsAccepted:
        sender = f"tel:{settings.ORANGE_SMS_SENDER_ADDRESS}"
        request = {
            "address": f"tel:{sms.to}",
            "senderAddress": sender,
            "outboundSMSTextMessage": {"message": sms.body},
        }
        if sms.sender:
            request["senderName"] = sms.sender
        token = http.token(self._token_key(), self._fetch_token)
        answer = http.post(
            f"{settings.ORANGE_SMS_BASE_URL}/smsmessaging/v1/outbound/"
            f"{quote(sender, safe='')}/requests",
            what="orange sms",
            ref=sms.reference,
            headers={
                "Authorization": f"Bearer {token}",
                "Content-Type": "application/json",
                "Accept": "application/json",
            },
            data=json.dumps({"outboundSMSMessageRequest": request}).encode(),
        )
        if answer.status_code == 401:  # the token expired or was revoked: a new one next time
            http.forget_token(self._token_key(), token)
            raise SmsTemporaryError("orange sms: HTTP 401, the token was refused")
        body = http.json_object(answer, "orange sms")
        if answer.status_code != 201:
            error = body.get("requestError") or {}
            exception = error.get("serviceException") or error.get("policyException") or {}
            raise SmsRejected(
                f"orange sms: HTTP {answer.status_code} {exception.get('messageId', '')} "
                f"{exception.get('text', '')}".strip()
            )
        resource = (body.get("outboundSMSMessageRequest") or {}).get("resourceURL") or ""
        vendor_id = resource.rstrip("/").rsplit("/", 1)[-1]
        if not vendor_id:
            raise SmsRejected("orange sms: HTTP 201 without a resourceURL")
        return SmsAccepted(vendor_id=vendor_id)

    def delivery_reports(self, callback: IncomingCallback) -> list[DeliveryReport]:
        expected = settings.ORANGE_SMS_CALLBACK_TOKEN
        given = callback.url.rstrip("/").rsplit("/", 1)[-1]
        if not expected or not hmac.compare_digest(given.encode(), expected.encode()):
            raise CallbackRefused("not Orange's delivery-receipt address")
        try:
            notification = json.loads(callback.body)["deliveryInfoNotification"]
            vendor_id = str(notification["callbackData"])
            status = str(notification["deliveryInfo"]["deliveryStatus"])
        except (ValueError, KeyError, TypeError) as exc:
            raise CallbackRefused("not a delivery receipt") from exc
        if status in DELIVERED:
            return [DeliveryReport(vendor_id, "delivered")]
        if status in FAILED:
            return [DeliveryReport(vendor_id, "failed", status)]
        return [DeliveryReport(vendor_id, "sent", status)]
