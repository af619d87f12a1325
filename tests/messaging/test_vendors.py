"""Each SMS vendor as its documents describe it (tests/fakes/sms.py): the message posted the
vendor's way, its id kept, retried when the vendor could not take it (5xx, a timeout), refused
for good otherwise, and its delivery reports recorded, once they are the vendor's."""

from datetime import timedelta
from urllib.parse import urlencode

import pytest
import time_machine
from django.utils import timezone

from messaging import services
from messaging.models import Message
from tests.fakes.base import Response, Silence

pytestmark = pytest.mark.django_db

PHONE = "+243812345678"


def live_message(merchant, body="Paiement de 5 000 CDF à Boutique confirmé.") -> Message:
    return Message.objects.create(
        merchant=merchant,
        livemode=True,
        to=PHONE,
        body=body,
        kind="receipt",
        next_attempt_at=timezone.now(),
    )


def post_form(client, path: str, form: dict, **headers):
    """As the vendors post their reports: form-encoded."""
    return client.post(
        path, urlencode(form), content_type="application/x-www-form-urlencoded", **headers
    )


def send(message: Message) -> Message:
    services.sms_send(message_id=message.id)
    message.refresh_from_db()
    return message


# --- Orange -------------------------------------------------------------------------------------


def test_orange_sends_with_a_token_and_the_sender_name(merchant, orange_sms):
    message = send(live_message(merchant))
    assert (message.status, message.provider, message.attempts) == ("sent", "orange", 1)
    (request,) = orange_sms.messages.values()
    assert request["address"] == f"tel:{PHONE}"
    assert request["senderName"] == "CongoPay"
    assert request["outboundSMSTextMessage"]["message"] == message.body
    assert message.vendor_id in orange_sms.messages
    send(live_message(merchant))
    assert orange_sms.token_requests == 1  # the token is kept for its hour


def test_orange_token_refused_is_renewed_at_the_next_attempt(merchant, orange_sms):
    send(live_message(merchant))
    orange_sms.expire_tokens()
    message = live_message(merchant)
    with pytest.raises(services.SendLater):
        services.sms_send(message_id=message.id)
    with time_machine.travel(timezone.now() + timedelta(seconds=31)):
        message = send(message)
    assert (message.status, message.attempts) == ("sent", 2)
    assert orange_sms.token_requests == 2


def test_orange_refuses_an_unregistered_sender_name_for_good(merchant, orange_sms, settings):
    settings.SMS_SENDER_NAME = "Inconnu"
    message = send(live_message(merchant))
    assert message.status == "failed"
    assert "POL0001" in message.error


def test_orange_delivery_receipt_at_its_secret_address(merchant, orange_sms, client):
    message = send(live_message(merchant))
    body = orange_sms.delivery_receipt(message.vendor_id, "DeliveredToTerminal", PHONE)
    wrong = client.post("/sms/status/orange/guess", body, content_type="application/json")
    assert wrong.status_code == 403
    message.refresh_from_db()
    assert message.status == "sent"
    answer = client.post("/sms/status/orange/orange-dr-word", body, content_type="application/json")
    assert answer.status_code == 200
    message.refresh_from_db()
    assert message.status == "delivered" and message.delivered_at is not None


# --- Twilio -------------------------------------------------------------------------------------


def test_twilio_sends_form_encoded_with_a_status_callback(merchant, twilio):
    message = send(live_message(merchant))
    assert (message.status, message.provider) == ("sent", "twilio")
    form = twilio.messages[message.vendor_id]
    assert form["To"] == PHONE and form["From"] == twilio.from_ and form["Body"] == message.body
    assert form["StatusCallback"] == "https://pay.example.cd/sms/status/twilio"


def test_twilio_status_callback_is_verified_then_recorded(merchant, twilio, client):
    message = send(live_message(merchant))
    url, form, headers = twilio.status_callback(message.vendor_id, "undelivered", "30003")
    assert url == "https://pay.example.cd/sms/status/twilio"
    forged = {"HTTP_X_TWILIO_SIGNATURE": headers["HTTP_X_TWILIO_SIGNATURE"][:-4] + "AAA="}
    assert post_form(client, "/sms/status/twilio", form, **forged).status_code == 403
    tampered = {**form, "MessageStatus": "delivered", "SmsStatus": "delivered"}
    assert post_form(client, "/sms/status/twilio", tampered, **headers).status_code == 403
    message.refresh_from_db()
    assert message.status == "sent"
    assert post_form(client, "/sms/status/twilio", form, **headers).status_code == 200
    message.refresh_from_db()
    assert (message.status, message.error) == ("failed", "undelivered 30003")
    # A later report never moves a message back.
    _url, form, headers = twilio.status_callback(message.vendor_id, "delivered")
    assert post_form(client, "/sms/status/twilio", form, **headers).status_code == 200
    message.refresh_from_db()
    assert message.status == "failed"


def test_twilio_5xx_is_retried_then_given_up(merchant, twilio, settings):
    settings.SMS_RETRY_SCHEDULE = [30, 60]
    path = rf"/2010-04-01/Accounts/{twilio.account_sid}/Messages\.json"
    twilio.answer_next("POST", path, Response(503, {"message": "Service unavailable"}), times=3)
    message = live_message(merchant)
    now = timezone.now()
    for attempt, wait in ((1, 30), (2, 60)):
        with time_machine.travel(now), pytest.raises(services.SendLater) as later:
            services.sms_send(message_id=message.id)
        assert later.value.countdown == wait
        message.refresh_from_db()
        assert (message.status, message.attempts) == ("queued", attempt)
        # Not before its time, whoever brings it.
        with time_machine.travel(now):
            assert services.sms_send(message_id=message.id) is False
        now += timedelta(seconds=wait + 1)
    with time_machine.travel(now):
        assert services.sms_send(message_id=message.id) is False
    message.refresh_from_db()
    assert (message.status, message.attempts) == ("failed", 3)
    assert "503" in message.error
    assert twilio.messages == {}


def test_twilio_refuses_a_bad_number_for_good(merchant, twilio):
    message = live_message(merchant)
    message.to = "+12"
    message.save()
    message = send(message)
    assert message.status == "failed" and "21211" in message.error


# --- Africa's Talking ---------------------------------------------------------------------------


def test_africastalking_sends_with_its_api_key_and_sender_id(merchant, africastalking):
    message = send(live_message(merchant))
    assert (message.status, message.provider) == ("sent", "africastalking")
    form = africastalking.messages[message.vendor_id]
    assert form["to"] == PHONE and form["from"] == "CONGOPAY" and form["username"] == "congopay"


def test_africastalking_gateway_error_is_retried_risk_hold_is_not(merchant, africastalking):
    africastalking.next_status = (501, "GatewayError")
    message = live_message(merchant)
    with pytest.raises(services.SendLater):
        services.sms_send(message_id=message.id)
    africastalking.next_status = (401, "RiskHold")
    with time_machine.travel(timezone.now() + timedelta(seconds=31)):
        message = send(message)
    assert (message.status, message.attempts) == ("failed", 2)
    assert "RiskHold" in message.error


def test_africastalking_timeout_is_retried(merchant, africastalking, settings):
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    africastalking.answer_next("POST", "/version1/messaging", Silence(3))
    message = live_message(merchant)
    with pytest.raises(services.SendLater):
        services.sms_send(message_id=message.id)
    message.refresh_from_db()
    assert (message.status, message.claimed_at) == ("queued", None)
    assert "no answer in time" in message.error


def test_africastalking_delivery_reports(merchant, africastalking, client):
    delivered = send(live_message(merchant))
    rejected = send(live_message(merchant))
    report = africastalking.delivery_report(delivered.vendor_id, "Success")
    assert post_form(client, "/sms/status/africastalking/nope", report).status_code == 403
    assert post_form(client, "/sms/status/africastalking/at-dr-word", report).status_code == 200
    on_the_way = africastalking.delivery_report(rejected.vendor_id, "Buffered")
    assert post_form(client, "/sms/status/africastalking/at-dr-word", on_the_way).status_code == 200
    rejected.refresh_from_db()
    assert rejected.status == "sent"
    failed = africastalking.delivery_report(rejected.vendor_id, "Rejected", "UserInBlackList")
    assert post_form(client, "/sms/status/africastalking/at-dr-word", failed).status_code == 200
    delivered.refresh_from_db()
    rejected.refresh_from_db()
    assert delivered.status == "delivered"
    assert (rejected.status, rejected.error) == ("failed", "Rejected UserInBlackList")


def test_a_test_mode_message_never_reaches_the_vendor(merchant, africastalking, eager_tasks):
    message = services.sms_queue(
        merchant=merchant, livemode=False, to=PHONE, body="test", kind="receipt"
    )
    assert message.status == "sent"
    assert services.sms_send(message_id=message.id) is False
    assert africastalking.messages == {} and africastalking.log == []
