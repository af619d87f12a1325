"""Resends are bounded: at most 5 per event and 100 per merchant and mode over the last hour,
counted in the database whoever asks (API or staff); beyond, 429 rate_limited with Retry-After,
and nothing is queued."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from tests.factories import record_event
from tests.helpers import assert_error, set_webhook_url
from webhooks.models import Delivery, Resend
from webhooks.services import RESENDS_PER_ACCOUNT, RESENDS_PER_EVENT

pytestmark = pytest.mark.django_db


def resend(api, event_id: str):
    return api.post(f"/v1/events/{event_id}/resend", format="json")


def test_a_sixth_resend_of_an_event_within_the_hour_is_refused_until_the_first_is_an_hour_old(
    api, merchant, receiver
):
    assert RESENDS_PER_EVENT == 5
    set_webhook_url(merchant, receiver.url())
    event = record_event(merchant)
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for _ in range(5):
            assert resend(api, event.id).status_code == 200
            clock.shift(timedelta(minutes=10))
        deliveries = Delivery.objects.count()

        refused = resend(api, event.id)  # 50 minutes after the first
        assert_error(refused, 429, "rate_limit_error", "rate_limited")
        assert refused["Retry-After"] == str(10 * 60)
        assert "5 times in the last hour" in refused.json()["error"]["message"]
        assert (Delivery.objects.count(), Resend.objects.count()) == (deliveries, 5)

        other = record_event(merchant)  # another event of the same merchant may be resent
        assert resend(api, other.id).status_code == 200

        clock.shift(timedelta(minutes=10, seconds=1))  # the first resend is now an hour old
        assert resend(api, event.id).status_code == 200


def test_the_101st_resend_of_a_merchants_events_in_a_mode_within_the_hour_is_refused(
    api, live_api, merchant, receiver
):
    assert RESENDS_PER_ACCOUNT == 100
    set_webhook_url(merchant, receiver.url())
    set_webhook_url(merchant, "https://shop.example/hooks", livemode=True)
    events = [record_event(merchant) for _ in range(21)]
    start = timezone.now()
    with time_machine.travel(start, tick=False) as clock:
        for event in events[:20]:
            for _ in range(5):
                assert resend(api, event.id).status_code == 200
            clock.shift(timedelta(seconds=30))

        refused = resend(api, events[20].id)  # never resent itself
        assert_error(refused, 429, "rate_limit_error", "rate_limited")
        assert refused["Retry-After"] == str(3600 - 20 * 30)
        assert "100 times in the last hour in this mode" in refused.json()["error"]["message"]
        assert not Resend.objects.filter(event=events[20]).exists()

        live = record_event(merchant, livemode=True)  # the other mode counts on its own
        assert resend(live_api, live.id).status_code == 200

        clock.shift(timedelta(seconds=3600 - 20 * 30))
        assert resend(api, events[20].id).status_code == 200


def test_a_refused_resend_is_said_in_the_requests_language(api, merchant, receiver):
    set_webhook_url(merchant, receiver.url())
    event = record_event(merchant)
    for _ in range(5):
        assert resend(api, event.id).status_code == 200
    refused = api.post(f"/v1/events/{event.id}/resend", format="json", HTTP_ACCEPT_LANGUAGE="fr")
    assert refused.status_code == 429
    assert refused.json()["error"]["message"].startswith("Cet événement a déjà été renvoyé 5 fois")


def test_staff_resends_count_too_and_a_refusal_is_said_in_words(
    admin_client, api, merchant, receiver
):
    set_webhook_url(merchant, receiver.url())
    event = record_event(merchant)
    for _ in range(3):
        assert resend(api, event.id).status_code == 200
    for _ in range(2):
        admin_client.post(
            "/admin/webhooks/event/", {"action": "resend", "_selected_action": [event.pk]}
        )
    assert Resend.objects.filter(event=event).count() == 5

    page = admin_client.post(
        "/admin/webhooks/event/",
        {"action": "resend", "_selected_action": [event.pk]},
        follow=True,
        HTTP_ACCEPT_LANGUAGE="en",
    )
    text = page.content.decode()
    assert "not resent" in text.lower() and "5 times in the last hour" in text
    assert Resend.objects.filter(event=event).count() == 5
    assert_error(resend(api, event.id), 429, "rate_limit_error", "rate_limited")
