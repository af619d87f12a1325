"""One row per message, sent by a worker once the payment's transaction has committed, at most
once; test mode keeps its messages and sends none."""

import logging
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from messaging import services
from messaging.models import Message
from tests.helpers import race

pytestmark = pytest.mark.django_db(transaction=True)


def test_test_mode_keeps_the_message_as_sent_and_sends_nothing(merchant, eager_tasks, caplog):
    caplog.set_level(logging.INFO, logger="messaging.console")
    message = services.sms_queue(
        merchant=merchant, livemode=False, to="+243812345678", body="Reçu", kind="receipt"
    )
    assert message.id.startswith("sms_")
    message.refresh_from_db()
    assert (message.status, message.provider, message.attempts) == ("sent", "test", 0)
    assert message.sent_at is not None
    assert "Reçu" not in caplog.text  # the console adapter never saw it


def test_a_live_message_goes_once_the_transaction_commits(merchant, eager_tasks, caplog):
    caplog.set_level(logging.INFO, logger="messaging.console")
    with transaction.atomic():
        message = services.sms_queue(
            merchant=merchant,
            livemode=True,
            to="+243812345678",
            body="Payé 5 000 FC",
            kind="receipt",
        )
        assert "Payé 5 000 FC" not in caplog.text  # nothing goes from inside the transaction
    message.refresh_from_db()
    assert message.status == "sent"
    assert (message.provider, message.attempts) == ("console", 1)
    assert message.vendor_id == f"console-{message.id}"
    assert caplog.text.count("Payé 5 000 FC") == 1


def test_a_rolled_back_payment_sends_nothing(merchant, eager_tasks, caplog):
    caplog.set_level(logging.INFO, logger="messaging.console")
    with pytest.raises(RuntimeError), transaction.atomic():
        services.sms_queue(
            merchant=merchant, livemode=True, to="+243812345678", body="jamais", kind="receipt"
        )
        raise RuntimeError
    assert not Message.objects.exists()
    assert "jamais" not in caplog.text


@pytest.mark.postgres
def test_two_workers_given_the_same_message_send_it_once(merchant, caplog):
    caplog.set_level(logging.INFO, logger="messaging.console")
    message = Message.objects.create(
        merchant=merchant,
        livemode=True,
        to="+243812345678",
        body="une fois",
        kind="receipt",
        next_attempt_at=timezone.now(),
    )
    results = race(lambda: services.sms_send(message_id=message.id), count=4)
    assert sorted(results) == [False, False, False, True]
    assert caplog.text.count("une fois") == 1
    message.refresh_from_db()
    assert (message.status, message.attempts) == ("sent", 1)
    assert services.sms_send(message_id=message.id) is False


def test_the_sweep_sends_what_the_broker_lost_and_gives_up_dead_claims(merchant, eager_tasks):
    long_ago = timezone.now() - timedelta(hours=1)
    lost = Message.objects.create(
        merchant=merchant,
        livemode=True,
        to="+243812345678",
        body="perdu",
        kind="receipt",
        next_attempt_at=long_ago,
    )
    fresh = Message.objects.create(
        merchant=merchant,
        livemode=True,
        to="+243812345678",
        body="récent",
        kind="receipt",
        next_attempt_at=timezone.now(),
    )
    dead = Message.objects.create(
        merchant=merchant,
        livemode=True,
        to="+243812345678",
        body="mort",
        kind="receipt",
        next_attempt_at=long_ago,
        claimed_at=long_ago,
        attempts=1,
    )
    assert services.messages_sweep() == 1
    lost.refresh_from_db()
    fresh.refresh_from_db()
    dead.refresh_from_db()
    assert lost.status == "sent"
    assert fresh.status == "queued"  # its own task is on its way
    assert (dead.status, dead.attempts) == ("failed", 1)  # perhaps sent: never sent twice
