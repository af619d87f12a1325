"""End to end, with a real Celery worker on Redis: a live receipt's message leaves once the
payment's transaction has committed, through Twilio (a faithful fake), which first answers 503;
the worker tries again and Twilio gets it once."""

import pytest
from django.db import transaction

from messaging import services
from messaging.models import Message
from tests.fakes.base import Response
from tests.fakes.sms import FakeTwilio
from tests.helpers import wait_for

pytestmark = [pytest.mark.redis, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_live_message_is_sent_once_by_the_worker_after_a_503(merchant, celery_worker_process):
    twilio = FakeTwilio()
    twilio.start()
    try:
        path = rf"/2010-04-01/Accounts/{twilio.account_sid}/Messages\.json"
        twilio.answer_next("POST", path, Response(503, {"message": "Service unavailable"}))
        celery_worker_process(
            SMS_PROVIDER="twilio",
            TWILIO_BASE_URL=twilio.url,
            TWILIO_ACCOUNT_SID=twilio.account_sid,
            TWILIO_AUTH_TOKEN=twilio.auth_token,
            TWILIO_FROM=twilio.from_,
            SMS_RETRY_SCHEDULE="1,1",
        )
        with transaction.atomic():
            message = services.sms_queue(
                merchant=merchant,
                livemode=True,
                to="+243812345678",
                body="Paiement de 2 500 CDF à Boutique confirmé.",
                kind="receipt",
            )
            # Inside the payment's transaction nothing has gone to the vendor.
            assert twilio.log == []

        def sent():
            message.refresh_from_db()
            return message.status == "sent"

        wait_for(sent)
        assert message.attempts == 2
        assert len(twilio.requests_to("POST", path.replace("\\", ""))) == 2  # the 503, then it
        (form,) = twilio.messages.values()
        assert form["Body"] == "Paiement de 2 500 CDF à Boutique confirmé."
        assert message.vendor_id in twilio.messages
    finally:
        twilio.stop()
    assert twilio.violations == []
    assert Message.objects.count() == 1
