"""GET /v1/test_helpers/messages: the test inbox (§23), test keys only, §5 list envelope."""

import pytest
from django.utils import timezone

from messaging import services
from messaging.models import Message

pytestmark = pytest.mark.django_db


def test_the_test_inbox_newest_first_in_the_list_envelope(api, merchant, merchant_keys):
    first = services.sms_queue(
        merchant=merchant, livemode=False, to="+243812345678", body="Un", kind="receipt"
    )
    second = services.sms_queue(
        merchant=merchant, livemode=False, to="+243991234567", body="Deux", kind="notification"
    )
    Message.objects.create(  # a live message never shows here
        merchant=merchant,
        livemode=True,
        to="+243812345678",
        body="live",
        kind="receipt",
        next_attempt_at=timezone.now(),
    )
    body = api.get("/v1/test_helpers/messages").json()
    assert body["object"] == "list" and body["url"] == "/v1/test_helpers/messages"
    assert body["has_more"] is False
    assert [m["id"] for m in body["data"]] == [second.id, first.id]
    assert body["data"][1] == {
        "id": first.id,
        "object": "message",
        "livemode": False,
        "to": "+243812345678",
        "body": "Un",
        "kind": "receipt",
        "status": "sent",
        "created_at": first.created_at.isoformat().replace("+00:00", "Z"),
    }
    page = api.get("/v1/test_helpers/messages?limit=1").json()
    assert page["has_more"] is True and [m["id"] for m in page["data"]] == [second.id]
    after = api.get(f"/v1/test_helpers/messages?limit=1&starting_after={second.id}").json()
    assert [m["id"] for m in after["data"]] == [first.id]


def test_a_live_key_gets_404(live_api):
    answer = live_api.get("/v1/test_helpers/messages")
    assert answer.status_code == 404
    assert answer.json()["error"]["code"] == "resource_missing"


def test_another_merchants_messages_are_not_shown(api, merchant):
    from tests.factories import merchant_with_keys

    other = merchant_with_keys().merchant
    services.sms_queue(merchant=other, livemode=False, to="+243812345678", body="x", kind="receipt")
    assert api.get("/v1/test_helpers/messages").json()["data"] == []


def test_staff_read_messages_and_set_a_merchants_sender_name(merchant):
    from messaging.models import MessagingSettings
    from tests.factories import staff_client

    message = services.sms_queue(
        merchant=merchant, livemode=False, to="+243812345678", body="Un", kind="receipt"
    )
    staff = staff_client()
    assert staff.get("/admin/messaging/message/").status_code == 200
    assert (
        message.id in staff.get(f"/admin/messaging/message/{message.id}/change/").content.decode()
    )
    assert staff.get("/admin/messaging/smsreceipt/").status_code == 200
    refused = staff.post(
        "/admin/messaging/messagingsettings/add/",
        {"merchant": merchant.pk, "sender_name": "Boutique Lumière"},
    )
    assert refused.status_code == 200 and not MessagingSettings.objects.exists()
    staff.post(
        "/admin/messaging/messagingsettings/add/",
        {"merchant": merchant.pk, "sender_name": "Lumiere"},
    )
    assert services.sender_name(merchant) == "Lumiere"
    assert services.messaging_settings(merchant).sms_receipts is True
