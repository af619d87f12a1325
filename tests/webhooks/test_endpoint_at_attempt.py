"""A delivery to the mode's default URL goes, at each attempt, to that URL as it is then: the
merchant who changes it gets the pending retries at the new one. A charge's callback_url stays
where the charge said."""

import pytest
from django.utils import timezone

from tests.factories import settled_charge
from tests.helpers import set_webhook_url
from webhooks import tasks
from webhooks.models import Delivery, DeliveryAttempt
from webhooks.services import NO_URL, delivery_attempt

pytestmark = pytest.mark.django_db


def due_now(delivery: Delivery) -> None:
    """The retry's time has come."""
    Delivery.objects.filter(pk=delivery.pk).update(next_attempt_at=timezone.now())


def test_a_retry_goes_to_the_url_the_merchant_set_since(api, merchant, receiver):
    receiver.then({"status": 500, "body": "moving"})
    set_webhook_url(merchant, receiver.url("/old"))
    settled_charge(merchant)
    delivery = Delivery.objects.get()
    assert delivery_attempt(delivery_id=delivery.id).status == "pending"  # 500 at /old

    response = api.post("/v1/webhook_endpoint", {"url": receiver.url("/new")}, format="json")
    assert response.status_code == 200
    due_now(delivery)
    tasks.delivery_send(delivery.id)  # as the worker runs it

    delivery.refresh_from_db()
    assert (delivery.status, delivery.url) == ("succeeded", receiver.url("/new"))
    assert [r.path for r in receiver.received] == ["/old", "/new"]
    assert len(receiver.verified()) == 2
    [shown] = api.get(f"/v1/events/{delivery.event_id}/deliveries").json()["data"]
    assert shown["url"] == receiver.url("/new")
    assert [a["url"] for a in shown["attempts"]] == [receiver.url("/new"), receiver.url("/old")]


def test_a_resend_waiting_for_its_first_attempt_goes_to_the_new_url(api, merchant, receiver):
    set_webhook_url(merchant, receiver.url("/old"))
    settled_charge(merchant)
    first = Delivery.objects.get()
    delivery_attempt(delivery_id=first.id)
    resent = api.post(f"/v1/events/{first.event_id}/resend", format="json").json()
    assert resent["url"] == receiver.url("/old")

    set_webhook_url(merchant, receiver.url("/new"))
    waiting = Delivery.objects.get(attempts=0)
    assert delivery_attempt(delivery_id=waiting.id).status == "succeeded"
    assert [r.path for r in receiver.received] == ["/old", "/new"]


def test_a_charges_callback_url_is_kept_whatever_the_endpoint_says(merchant, receiver):
    receiver.then({"status": 500})
    set_webhook_url(merchant, receiver.url("/default"))
    settled_charge(merchant, callback_url=receiver.url("/orders/7"))
    delivery = Delivery.objects.get()
    delivery_attempt(delivery_id=delivery.id)

    set_webhook_url(merchant, receiver.url("/elsewhere"))
    due_now(delivery)
    assert delivery_attempt(delivery_id=delivery.id).status == "succeeded"
    assert [r.path for r in receiver.received] == ["/orders/7", "/orders/7"]


def test_a_retry_after_the_url_was_cleared_fails_without_a_request(merchant, receiver):
    receiver.then({"status": 500})
    set_webhook_url(merchant, receiver.url("/hooks"))
    settled_charge(merchant)
    delivery = Delivery.objects.get()
    delivery_attempt(delivery_id=delivery.id)

    set_webhook_url(merchant, "")  # the merchant stops its webhooks
    due_now(delivery)
    result = delivery_attempt(delivery_id=delivery.id)
    assert (result.status, result.last_error, result.next_attempt_at) == ("failed", NO_URL, None)
    assert len(receiver.received) == 1
    assert DeliveryAttempt.objects.filter(delivery=delivery).count() == 2
