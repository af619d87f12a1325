"""Each mode has its own default webhook URL and signing secret: a test key sees and changes only
the test endpoint, test events are never signed with the live secret, and a rotated secret keeps
signing beside the new one for 24 hours. Merchants see deliveries and resend events themselves."""

import json
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse
from django.utils import timezone
from standardwebhooks import Webhook, WebhookVerificationError

from tests.factories import record_event, settled_charge
from tests.helpers import admin_url, assert_error, set_webhook_url, webhook_secret
from webhooks.models import Delivery
from webhooks.representations import event_body
from webhooks.services import delivery_attempt, event_signed_headers

pytestmark = pytest.mark.django_db


def test_a_test_key_never_sees_nor_changes_the_live_endpoint(api, live_api, merchant):
    set_webhook_url(merchant, "https://live.shop.example/hooks", livemode=True)
    live_secret = webhook_secret(merchant, livemode=True)

    test_view = api.get("/v1/webhook_endpoint").json()
    assert test_view["livemode"] is False and test_view["url"] is None
    assert test_view["secret"] == webhook_secret(merchant) != live_secret

    changed = api.post(
        "/v1/webhook_endpoint", {"url": "https://dev.shop.example/hooks"}, format="json"
    )
    assert changed.status_code == 200 and changed.json()["url"] == "https://dev.shop.example/hooks"
    rotated = api.post("/v1/webhook_endpoint/rotate_secret", {}, format="json")
    assert rotated.status_code == 200 and rotated.json()["secret"] != test_view["secret"]

    live_view = live_api.get("/v1/webhook_endpoint").json()
    assert live_view == {
        "object": "webhook_endpoint",
        "livemode": True,
        "url": "https://live.shop.example/hooks",
        "secret": live_secret,
        "previous_secret_expires_at": None,
    }


def test_a_live_endpoint_needs_no_live_approval(live_api, merchant):
    assert merchant.live_approved is False
    response = live_api.post(
        "/v1/webhook_endpoint", {"url": "https://shop.example/hooks"}, format="json"
    )
    assert response.status_code == 200 and response.json()["livemode"] is True


def test_each_mode_signs_with_its_own_secret(merchant, receiver):
    set_webhook_url(merchant, receiver.url("/test"))
    test_event = record_event(merchant)
    delivery_attempt(delivery_id=test_event.deliveries.get().id)
    [got] = receiver.received
    Webhook(webhook_secret(merchant)).verify(got.body, got.headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(webhook_secret(merchant, livemode=True)).verify(got.body, got.headers)

    # A live delivery needs https, so its headers are read where every attempt makes them.
    live_event = record_event(merchant, livemode=True)
    body = event_body(live_event)
    headers = event_signed_headers(event=live_event, body=body, at=timezone.now())
    Webhook(webhook_secret(merchant, livemode=True)).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(webhook_secret(merchant)).verify(body, headers)


def test_a_rotated_secret_keeps_signing_for_24_hours(api, merchant, receiver):
    set_webhook_url(merchant, receiver.url())
    old = webhook_secret(merchant)
    rotated = api.post("/v1/webhook_endpoint/rotate_secret", format="json").json()
    new = rotated["secret"]
    assert new != old and rotated["previous_secret_expires_at"] is not None

    def deliver():
        receiver.received.clear()
        event = record_event(merchant)
        delivery_attempt(delivery_id=event.deliveries.get().id)
        [got] = receiver.received
        return got

    got = deliver()
    assert len(got.headers["webhook-signature"].split(" ")) == 2  # new first, then old
    Webhook(new).verify(got.body, got.headers)
    Webhook(old).verify(got.body, got.headers)

    with time_machine.travel(timezone.now() + timedelta(hours=24, seconds=1)):
        got = deliver()
        assert len(got.headers["webhook-signature"].split(" ")) == 1
        Webhook(new).verify(got.body, got.headers)
        with pytest.raises(WebhookVerificationError):
            Webhook(old).verify(got.body, got.headers)


def test_merchants_see_deliveries_and_resend_an_event(api, live_api, merchant, receiver):
    receiver.then({"status": 500, "body": "down for maintenance"})
    set_webhook_url(merchant, receiver.url("/first"))
    settled_charge(merchant)
    event_id = api.get("/v1/events").json()["data"][0]["id"]
    delivery_attempt(delivery_id=Delivery.objects.get().id)

    body = api.get(f"/v1/events/{event_id}/deliveries").json()
    assert (body["object"], body["url"], body["has_more"], body["limit"], body["offset"]) == (
        "list", f"/v1/events/{event_id}/deliveries", False, 10, 0,
    )  # fmt: skip
    [delivery] = body["data"]
    assert (delivery["object"], delivery["livemode"], delivery["event_id"]) == (
        "delivery", False, event_id,
    )  # fmt: skip
    assert delivery["status"] == "pending"
    [attempt] = delivery["attempts"]
    assert (attempt["status_code"], attempt["error"]) == (500, "HTTP 500.")
    assert attempt["attempted_at"].endswith("Z") and attempt["duration_ms"] >= 0

    set_webhook_url(merchant, receiver.url("/second"))
    resent = api.post(f"/v1/events/{event_id}/resend", format="json")
    assert resent.status_code == 200, resent.content
    assert (resent.json()["url"], resent.json()["status"]) == (receiver.url("/second"), "pending")
    assert resent.json()["livemode"] is False
    delivery_attempt(delivery_id=Delivery.objects.get(url=receiver.url("/second")).id)
    assert [r.path for r in receiver.verified()] == ["/first", "/second"]
    assert json.loads(receiver.received[-1].body)["id"] == event_id
    assert len(api.get(f"/v1/events/{event_id}/deliveries").json()["data"]) == 2

    # Scoped like every object: the other mode's key gets 404.
    assert live_api.get(f"/v1/events/{event_id}/deliveries").status_code == 404
    assert live_api.post(f"/v1/events/{event_id}/resend", format="json").status_code == 404
    live = record_event(merchant, livemode=True, url="https://hooks.example.cd/live")
    [delivery] = live_api.get(f"/v1/events/{live.id}/deliveries").json()["data"]
    assert delivery["livemode"] is True


def test_an_events_deliveries_are_paged_by_limit_and_offset_like_every_list(
    api, merchant, receiver
):
    event = record_event(merchant, url=receiver.url("/a"))
    delivery_attempt(delivery_id=Delivery.objects.get().id)
    for path in ("b", "c"):  # once the last one was attempted, a resend is a new delivery
        set_webhook_url(merchant, receiver.url(f"/{path}"))
        resent = api.post(f"/v1/events/{event.id}/resend", format="json")
        assert resent.status_code == 200, resent.content
        delivery_attempt(delivery_id=Delivery.objects.get(url=receiver.url(f"/{path}")).id)
    path = f"/v1/events/{event.id}/deliveries"

    def urls(page):
        return [delivery["url"].rsplit("/", 1)[1] for delivery in page["data"]]

    first = api.get(path, {"limit": 2}).json()
    assert (urls(first), first["has_more"], first["limit"], first["offset"]) == (
        ["c", "b"], True, 2, 0,
    )  # fmt: skip
    rest = api.get(path, {"limit": 2, "offset": 2}).json()
    assert (urls(rest), rest["has_more"], rest["offset"]) == (["a"], False, 2)
    assert urls(api.get(path).json()) == ["c", "b", "a"]
    for params in ({"limit": 0}, {"limit": 101}, {"offset": -1}, {"offset": "x"}):
        response = api.get(path, params)
        assert_error(response, 400, "invalid_request_error", "parameter_invalid")
        assert response.json()["error"]["param"] == next(iter(params))
    # a delivery has no id to start a page after
    response = api.get(path, {"starting_after": "whatever"})
    assert_error(response, 400, "invalid_request_error", "parameter_unknown")


def test_resend_without_a_destination_is_refused(api, merchant):
    event = record_event(merchant)
    response = api.post(f"/v1/events/{event.id}/resend", format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "webhook_url_missing"


def test_staff_see_both_endpoints_and_rotate_one_mode_without_seeing_its_secret(
    admin_client, merchant
):
    test_secret, live_secret = webhook_secret(merchant), webhook_secret(merchant, livemode=True)
    page = admin_client.get(admin_url(merchant)).content.decode()
    assert page.count("webhook_endpoints-") > 2  # the inline's two rows
    assert test_secret not in page and live_secret not in page
    assert test_secret[:10] in page and live_secret[:10] in page  # masked

    response = admin_client.post(
        reverse("admin:payments_merchant_changelist"),
        {"action": "rotate_live_webhook_secret", "_selected_action": [merchant.pk]},
        follow=True,
    )
    new_live = webhook_secret(merchant, livemode=True)
    assert new_live != live_secret and webhook_secret(merchant) == test_secret
    assert new_live not in response.content.decode()
    assert "Nouveau secret de signature live des webhooks pour" in response.text
    assert all(new_live not in morsel.value for morsel in admin_client.cookies.values())
