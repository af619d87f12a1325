"""Africa's Talking's SMS API (developers.africastalking.com/docs/sms), as documented and as its
Python library (africastalking-python, SMSService.send) sends it:

- a message: POST {base}/version1/messaging (api.africastalking.com; the sandbox is
  api.sandbox.africastalking.com), headers `apiKey` and `Accept: application/json`, form-encoded
  `username`, `to` (E.164, comma-separated), `message`, `from` (the sender id or shortcode, when
  one is registered), `bulkSMSMode=1` → 201 `{"SMSMessageData": {"Message", "Recipients":
  [{"statusCode", "number", "status", "cost", "messageId"}]}}`. A recipient's statusCode 100
  (Processed), 101 (Sent) or 102 (Queued) means taken; 500 (InternalServerError) and 501
  (GatewayError) are the vendor's own failures, tried again; the others (401 RiskHold, 402
  InvalidSenderId, 403 InvalidPhoneNumber, 405 InsufficientBalance, 406 UserInBlacklist, …) are
  final;
- delivery reports: POST, form-encoded, to the address registered in the account (SMS → SMS
  Callback URLs → Delivery Reports), with `id` (the messageId), `status` (Sent, Submitted,
  Buffered, then the final Success, Rejected or Failed), `phoneNumber`, `networkCode` and, for
  Rejected or Failed, `failureReason`. They carry no signature: the address holds a secret word
  (AFRICASTALKING_CALLBACK_TOKEN)."""

import hmac

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

TAKEN = {100, 101, 102}
VENDOR_FAILURES = {500, 501}


class AfricasTalkingSms:
    name = "africastalking"

    def send(self, sms: OutgoingSms) -> SmsAccepted:
        form = {
            "username": settings.AFRICASTALKING_USERNAME,
            "to": sms.to,
            "message": sms.body,
            "bulkSMSMode": "1",
        }
        # Only a sender id Africa's Talking registered for the account (else its default).
        if settings.AFRICASTALKING_SENDER_ID:
            form["from"] = settings.AFRICASTALKING_SENDER_ID
        answer = http.post(
            f"{settings.AFRICASTALKING_BASE_URL}/version1/messaging",
            what="africastalking sms",
            ref=sms.reference,
            headers={"apiKey": settings.AFRICASTALKING_API_KEY, "Accept": "application/json"},
            data=form,
        )
        if not 200 <= answer.status_code < 300:
            raise SmsRejected(f"africastalking sms: HTTP {answer.status_code} {answer.text[:200]}")
        body = http.json_object(answer, "africastalking sms")
        recipients = (body.get("SMSMessageData") or {}).get("Recipients") or []
        if not recipients:
            message = (body.get("SMSMessageData") or {}).get("Message", "")
            raise SmsRejected(f"africastalking sms: no recipient taken ({message})")
        recipient = recipients[0]
        code = recipient.get("statusCode")
        if code in TAKEN and recipient.get("messageId"):
            return SmsAccepted(vendor_id=str(recipient["messageId"]))
        reason = f"africastalking sms: {code} {recipient.get('status', '')}".strip()
        if code in VENDOR_FAILURES:
            raise SmsTemporaryError(reason)
        raise SmsRejected(reason)

    def delivery_reports(self, callback: IncomingCallback) -> list[DeliveryReport]:
        expected = settings.AFRICASTALKING_CALLBACK_TOKEN
        given = callback.url.rstrip("/").rsplit("/", 1)[-1]
        if not expected or not hmac.compare_digest(given.encode(), expected.encode()):
            raise CallbackRefused("not Africa's Talking's delivery-report address")
        vendor_id, status = callback.form.get("id"), callback.form.get("status")
        if not vendor_id or not status:
            raise CallbackRefused("no id or status")
        if status == "Success":
            return [DeliveryReport(vendor_id, "delivered")]
        if status in ("Rejected", "Failed"):
            reason = callback.form.get("failureReason", "")
            return [DeliveryReport(vendor_id, "failed", f"{status} {reason}".strip())]
        return [DeliveryReport(vendor_id, "sent", status)]
