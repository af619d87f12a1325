"""Deliveries to a real HTTP receiver on 127.0.0.1, verified with the `standardwebhooks` package."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from tests.factories import record_event, settled_charge
from tests.helpers import race, set_webhook_url
from webhooks.models import Delivery, DeliveryAttempt
from webhooks.services import delivery_attempt
from webhooks.transport import NO_ANSWER

pytestmark = pytest.mark.django_db


def _delivery(event) -> Delivery:
    return event.deliveries.get()


def test_delivered_signed_and_shaped_as_the_contract_says(merchant, receiver):
    set_webhook_url(merchant, receiver.url())
    charge = settled_charge(merchant)
    delivery = Delivery.objects.get()
    assert delivery_attempt(delivery_id=delivery.id).status == "succeeded"

    [got] = receiver.received
    assert got.verified is not None, "standardwebhooks must verify our signature"
    payload = got.payload
    assert list(payload) == ["id", "object", "type", "livemode", "created_at", "data"]
    assert payload["object"] == "event"
    assert payload["type"] == "charge.succeeded"
    assert payload["livemode"] is False
    assert payload["id"] == delivery.event_id == got.headers["webhook-id"]
    assert payload["created_at"].endswith("Z")
    assert list(payload["data"]) == ["object"]
    assert payload["data"]["object"]["id"] == charge.id
    assert payload["data"]["object"]["status"] == "succeeded"
    assert got.headers["content-type"] == "application/json"

    delivery.refresh_from_db()
    assert (delivery.attempts, delivery.last_error, delivery.next_attempt_at) == (1, "", None)
    [attempt] = DeliveryAttempt.objects.all()
    assert (attempt.status_code, attempt.response_body, attempt.error) == (200, "ok", "")


def test_failing_receiver_is_retried_on_the_schedule_until_it_recovers(
    merchant, receiver, settings
):
    settings.WEBHOOK_RETRY_SCHEDULE = [5, 300]
    receiver.then({"status": 500, "body": "database down"}, {"status": 503})
    delivery = _delivery(record_event(merchant, url=receiver.url()))

    first = delivery_attempt(delivery_id=delivery.id)
    assert (first.status, first.attempts, first.last_error) == ("pending", 1, "HTTP 500.")
    assert first.next_attempt_at == first.updated_at + timedelta(seconds=5)
    assert delivery_attempt(delivery_id=delivery.id) is None  # not due yet

    with time_machine.travel(timezone.now() + timedelta(seconds=6)):
        second = delivery_attempt(delivery_id=delivery.id)
    assert (second.status, second.attempts) == ("pending", 2)
    assert second.next_attempt_at == second.updated_at + timedelta(seconds=300)

    with time_machine.travel(timezone.now() + timedelta(seconds=306)):
        third = delivery_attempt(delivery_id=delivery.id)
    assert (third.status, third.attempts, third.last_error) == ("succeeded", 3, "")

    ids = {r.headers["webhook-id"] for r in receiver.received}
    assert ids == {delivery.event_id} and len(receiver.received) == 3
    assert receiver.received[-1].verified is not None
    attempts = list(DeliveryAttempt.objects.order_by("attempted_at"))
    assert [a.status_code for a in attempts] == [500, 503, 200]
    assert attempts[0].response_body == "database down"


def test_delivery_fails_after_the_last_retry(merchant, receiver, settings):
    settings.WEBHOOK_RETRY_SCHEDULE = [0, 0]
    receiver.then({"status": 500}, {"status": 500}, {"status": 500})
    delivery = _delivery(record_event(merchant, url=receiver.url()))
    for _ in range(3):
        result = delivery_attempt(delivery_id=delivery.id)
    assert (result.status, result.attempts, result.next_attempt_at) == ("failed", 3, None)
    assert delivery_attempt(delivery_id=delivery.id) is None
    assert len(receiver.received) == 3


def test_timeout_is_an_attempt_that_is_retried(merchant, receiver, settings, caplog):
    settings.WEBHOOK_TIMEOUT = 0.3
    receiver.then({"sleep": 1.5})
    delivery = _delivery(record_event(merchant, url=receiver.url()))
    result = delivery_attempt(delivery_id=delivery.id)
    assert result.status == "pending" and result.attempts == 1
    assert result.last_error == NO_ANSWER  # the cause in the server's log only
    assert "got no answer: timed out after 0.3 s" in caplog.text
    attempt = DeliveryAttempt.objects.get()
    assert attempt.status_code is None and attempt.error == result.last_error


def test_an_answer_dribbled_byte_by_byte_is_cut_at_twice_the_timeout(
    merchant, receiver, settings, caplog
):
    """Each byte comes within WEBHOOK_TIMEOUT, so no single wait times out: the attempt as a whole
    does, at 2 × WEBHOOK_TIMEOUT (what the delivery's hold counts on), and is retried."""
    settings.WEBHOOK_TIMEOUT = 0.3
    receiver.then({"dribble": 0.1})  # 44 bytes: 4.4 s in all
    delivery = _delivery(record_event(merchant, url=receiver.url()))
    result = delivery_attempt(delivery_id=delivery.id)
    assert receiver.dribbled_whole == 0  # given up before the answer could have come whole
    assert result.status == "pending" and result.attempts == 1
    assert result.last_error == NO_ANSWER
    assert "got no answer: timed out after 0.6 s in all" in caplog.text
    receiver.then({})  # the next attempt is answered at once, on a new connection
    delivery.refresh_from_db()
    Delivery.objects.filter(pk=delivery.id).update(next_attempt_at=timezone.now())
    assert delivery_attempt(delivery_id=delivery.id).status == "succeeded"


def test_connection_refused_is_recorded_and_retried(merchant, receiver, caplog):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    delivery = _delivery(record_event(merchant, url=f"http://127.0.0.1:{port}/hooks"))
    result = delivery_attempt(delivery_id=delivery.id)
    assert result.status == "pending" and result.next_attempt_at is not None
    assert result.last_error == NO_ANSWER
    assert "refused" in caplog.text.lower()


def test_redirect_is_not_followed(merchant, receiver):
    receiver.then({"status": 302, "location": receiver.url("/elsewhere")})
    delivery = _delivery(record_event(merchant, url=receiver.url()))
    result = delivery_attempt(delivery_id=delivery.id)
    assert [r.path for r in receiver.received] == ["/hooks"]
    assert result.status == "pending"
    assert "redirect" in result.last_error and "not followed" in result.last_error
    assert DeliveryAttempt.objects.get().status_code == 302


def test_answer_kept_is_at_most_1_kb(merchant, receiver):
    receiver.then({"status": 200, "body": "x" * 5000})
    delivery = _delivery(record_event(merchant, url=receiver.url()))
    delivery_attempt(delivery_id=delivery.id)
    assert len(DeliveryAttempt.objects.get().response_body) == 1024


def test_callback_url_gets_charge_events_the_default_gets_the_rest(merchant, receiver):
    from checkout.models import CheckoutSession

    set_webhook_url(merchant, receiver.url("/default"))
    session = CheckoutSession.objects.create(
        merchant=merchant,
        amount=5000,
        currency="CDF",
        success_url="https://shop.example/ok",
        cancel_url="https://shop.example/cancel",
        payment_methods=["mobile_money"],
        expires_at=timezone.now() + timedelta(hours=1),
    )
    settled_charge(merchant, callback_url=receiver.url("/order-17"), checkout_session=session)
    settled_charge(merchant, status="failed")
    for delivery in Delivery.objects.all():
        delivery_attempt(delivery_id=delivery.id)
    got = sorted((r.path, r.payload["type"]) for r in receiver.verified())
    assert got == [
        ("/default", "charge.failed"),
        ("/default", "checkout.session.completed"),
        ("/order-17", "charge.succeeded"),
    ]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_tasks_for_one_delivery_send_once(merchant, receiver):
    receiver.then({"sleep": 0.5})
    delivery = _delivery(record_event(merchant, url=receiver.url()))
    results = race(lambda: delivery_attempt(delivery_id=delivery.id), 4)
    assert len(receiver.received) == 1
    # One task sent it; the three others found it held and did nothing (none failed).
    [sent] = [r for r in results if isinstance(r, Delivery)]
    assert (sent.id, sent.status) == (delivery.id, "succeeded")
    assert results.count(None) == 3, results
    assert DeliveryAttempt.objects.count() == 1


@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_cuts_a_dribbled_answer_at_twice_the_timeout(
    merchant, receiver, celery_worker_process, tmp_path
):
    """In a real Celery worker (prefork: the task runs in its process's main thread, where the
    deadline's timer can be set), as in the test process."""
    from django.conf import settings

    from tests.helpers import wait_for
    from webhooks import tasks

    celery_worker_process(WEBHOOK_TIMEOUT="0.3")
    receiver.then({"dribble": 0.1})
    delivery = record_event(merchant, url=receiver.url()).deliveries.get()
    tasks.delivery_send.apply_async((delivery.id,), queue=settings.WEBHOOKS_QUEUE)
    wait_for(lambda: DeliveryAttempt.objects.filter(delivery=delivery).exists(), timeout=30)
    attempt = DeliveryAttempt.objects.get(delivery=delivery)
    assert attempt.error == NO_ANSWER
    assert receiver.dribbled_whole == 0  # given up before the answer could have come whole
    assert (
        "got no answer: timed out after 0.6 s in all"
        in (tmp_path / "worker-celery.log").read_text()
    )
