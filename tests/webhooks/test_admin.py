"""Staff see an event's deliveries and attempts, and can resend it."""

import pytest
from django.contrib.admin.utils import quote
from django.urls import reverse

from tests.factories import record_event, settled_charge
from tests.helpers import set_webhook_url
from webhooks.models import Delivery, Event
from webhooks.services import delivery_attempt

pytestmark = pytest.mark.django_db


def test_event_page_shows_attempts_and_resend_makes_a_new_delivery(
    admin_client, merchant, receiver
):
    receiver.then({"status": 500, "body": "upstream exploded"})
    set_webhook_url(merchant, receiver.url("/old"))
    settled_charge(merchant)
    event = Event.objects.get()
    delivery_attempt(delivery_id=event.deliveries.get().id)

    # reversed as the admin reverses it, with the id quoted (an id whose `_` is followed by two
    # hex digits, evt_3A…, would otherwise be read back as evt:…)
    page = admin_client.get(reverse("admin:webhooks_event_change", args=[quote(event.id)]))
    assert page.status_code == 200
    assert b"upstream exploded" in page.content and b"HTTP 500." in page.content

    listing = admin_client.get(
        reverse("admin:webhooks_event_changelist"), {"deliveries__status": "pending", "q": event.id}
    )
    assert event.id.encode() in listing.content

    set_webhook_url(merchant, receiver.url("/new"))
    response = admin_client.post(
        reverse("admin:webhooks_event_changelist"),
        {"action": "resend", "_selected_action": [event.id]},
    )
    assert response.status_code == 302
    shown = admin_client.get(response.url).content.decode()
    # French by default; the id as it is (the admin capitalises a message's first letter)
    assert f"Événement {event.id} : renvoi à {receiver.url('/new')}." in shown
    resent = Delivery.objects.exclude(url=receiver.url("/old")).get()
    assert (resent.event_id, resent.url, resent.status) == (
        event.id,
        receiver.url("/new"),
        "pending",
    )
    delivery_attempt(delivery_id=resent.id)
    assert [(r.path, r.headers["webhook-id"]) for r in receiver.verified()] == [
        ("/old", event.id),
        ("/new", event.id),
    ]


def test_resend_of_a_callback_url_event_goes_to_the_callback_url(admin_client, merchant, receiver):
    set_webhook_url(merchant, receiver.url("/default"))
    settled_charge(merchant, callback_url=receiver.url("/order-9"))
    record_event(merchant, type="checkout.session.expired")
    for delivery in Delivery.objects.all():  # attempted, so a resend makes a new delivery
        delivery_attempt(delivery_id=delivery.id)
    for event in Event.objects.all():
        admin_client.post(
            reverse("admin:webhooks_event_changelist"),
            {"action": "resend", "_selected_action": [event.id]},
        )
    urls = sorted(Delivery.objects.values_list("url", flat=True))
    assert urls == sorted([receiver.url("/order-9")] * 2 + [receiver.url("/default")] * 2)
