"""A resend queues an event once: asked again before its delivery has been attempted, it answers
that delivery instead of making another (a merchant's loop or a double click cannot fill the
delivery workers' queue); once attempted, a resend makes a new one again."""

import threading

import pytest
import requests

from tests.factories import merchant_with_keys, record_event
from tests.helpers import set_webhook_url
from webhooks.models import Delivery
from webhooks.services import delivery_attempt

pytestmark = pytest.mark.django_db


def resend(api, event_id: str) -> dict:
    response = api.post(f"/v1/events/{event_id}/resend", format="json")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_resend_asked_again_before_it_is_attempted_is_the_same_delivery(api, merchant, receiver):
    receiver.then({"status": 500, "body": "down"})
    set_webhook_url(merchant, receiver.url("/hooks"))
    event = record_event(merchant, url=receiver.url("/hooks"))
    delivery_attempt(delivery_id=Delivery.objects.get().id)  # the first delivery: tried, failed

    first = resend(api, event.id)
    again = [resend(api, event.id) for _ in range(3)]
    assert all(d == first for d in again)
    assert Delivery.objects.filter(event=event).count() == 2  # the first and one resend

    resent = Delivery.objects.filter(event=event, attempts=0).get()
    delivery_attempt(delivery_id=resent.id)
    later = resend(api, event.id)  # the resend was attempted: a new one
    assert later["created_at"] > first["created_at"] and later["attempts"] == []
    assert Delivery.objects.filter(event=event).count() == 3
    assert len(receiver.verified()) == 2  # the first delivery and the first resend, once each


def test_a_first_delivery_not_yet_attempted_is_the_answer(api, merchant, receiver):
    set_webhook_url(merchant, receiver.url("/hooks"))
    event = record_event(merchant, url=receiver.url("/hooks"))
    [waiting] = Delivery.objects.filter(event=event)

    answer = resend(api, event.id)
    assert answer["url"] == receiver.url("/hooks") and answer["status"] == "pending"
    assert list(Delivery.objects.filter(event=event)) == [waiting]


def test_a_resend_to_another_url_is_not_held_back_by_one_waiting_elsewhere(api, merchant, receiver):
    set_webhook_url(merchant, receiver.url("/old"))
    event = record_event(merchant, url=receiver.url("/old"))  # waiting for its first attempt
    set_webhook_url(merchant, receiver.url("/new"))

    answer = resend(api, event.id)
    assert answer["url"] == receiver.url("/new")
    assert sorted(Delivery.objects.filter(event=event).values_list("url", flat=True)) == [
        receiver.url("/new"),
        receiver.url("/old"),
    ]


def test_staff_resends_follow_the_same_rule(admin_client, merchant, receiver):
    set_webhook_url(merchant, receiver.url("/hooks"))
    event = record_event(merchant, url=receiver.url("/hooks"))
    delivery_attempt(delivery_id=Delivery.objects.get().id)
    for _ in range(3):
        admin_client.post(
            "/admin/webhooks/event/",
            {"action": "resend", "_selected_action": [event.pk]},
        )
    assert Delivery.objects.filter(event=event).count() == 2


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_simultaneous_resends_make_one_delivery(live_server, receiver):
    keys = merchant_with_keys()
    set_webhook_url(keys.merchant, receiver.url("/hooks"))
    event = record_event(keys.merchant, url=receiver.url("/hooks"))
    delivery_attempt(delivery_id=Delivery.objects.get().id)
    url = f"{live_server.url}/v1/events/{event.id}/resend"
    headers = {"Authorization": f"Bearer {keys.test_key.plaintext}"}
    barrier = threading.Barrier(8)
    answers = []

    def run():
        with requests.Session() as session:
            barrier.wait(timeout=30)
            answers.append(session.post(url, headers=headers, timeout=30))

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    # Five resends an hour per event, counted one after the other however they come.
    assert sorted(a.status_code for a in answers) == [200] * 5 + [429] * 3
    assert len({a.json()["created_at"] for a in answers if a.status_code == 200}) == 1
    assert Delivery.objects.filter(event=event).count() == 2
