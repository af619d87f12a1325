"""The developers' page: API keys (a new key's secret shown once), the webhook endpoint (the
API's URL checks, secret reveal and rotation), events with their deliveries and the resend with
its bounds; for the roles that hold keys, each change audited."""

import pytest

from dashboard.models import AuditEntry
from payments.models import ApiKey
from tests.dashboard.pages.conftest import ROLES, client_of, member
from tests.factories import record_event
from tests.helpers import api_client, race, set_webhook_url
from webhooks.models import Delivery, Resend, WebhookEndpoint
from webhooks.services import RESENDS_PER_ACCOUNT, RESENDS_PER_EVENT

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

DEV = "/dashboard/test/developers/"
DEVELOPERS = ("owner", "admin", "developer")


def create_key(client, key: str | None = None):
    key = key or client.get(DEV).context["key_form"]["idempotency_key"].value()
    return client.post(f"{DEV}keys/", {"idempotency_key": key})


def rotate(client, key: str | None = None, **headers):
    """The "Rotate the secret" form, as the page gives it (its key), sent."""
    key = key or client.get(DEV).context["rotate_form"]["idempotency_key"].value()
    return client.post(f"{DEV}webhook/rotate/", {"idempotency_key": key}, **headers)


def resend(client, event, key: str | None = None, **headers):
    """The event page's "Resend" form, as the page gives it (its key), sent."""
    page = f"{DEV}events/{event.id}/"
    key = key or client.get(page).context["resend_form"]["idempotency_key"].value()
    return client.post(f"{page}resend/", {"idempotency_key": key}, **headers)


@pytest.mark.parametrize("role", ROLES)
def test_only_the_roles_that_hold_keys_reach_the_page_or_change_anything(shop, clients, role):
    keys = ApiKey.objects.count()
    endpoint = WebhookEndpoint.objects.get(merchant=shop, livemode=False)
    event = record_event(shop, url="http://127.0.0.1:9/hook")
    answers = [
        clients[role].get(DEV),
        clients[role].get(f"{DEV}events/"),
        clients[role].get(f"{DEV}events/{event.id}/"),
        create_key(clients[role], key="dash_role"),
        clients[role].post(f"{DEV}webhook/", {"url": "https://example.com/hook"}),
        rotate(clients[role], key="dash_role_rotate"),
        clients[role].post(f"{DEV}webhook/secret/"),
        resend(clients[role], event, key="dash_role_resend"),
    ]
    if role in DEVELOPERS:
        assert [answer.status_code for answer in answers] == [
            200,
            200,
            200,
            200,
            302,
            200,
            200,
            302,
        ]
        return
    assert {answer.status_code for answer in answers} == {403}
    assert ApiKey.objects.count() == keys
    after = WebhookEndpoint.objects.get(pk=endpoint.pk)
    assert (after.url, after.secret) == (endpoint.url, endpoint.secret)
    assert not Resend.objects.exists()
    assert not AuditEntry.objects.exists()


def test_a_new_key_is_shown_once_and_works(shop, owner):
    answer = create_key(owner)
    plaintext = answer.context["new_key"]
    assert plaintext.startswith("sk_test_") and plaintext.encode() in answer.content
    assert "no-store" in answer["Cache-Control"].split(", ")
    made = ApiKey.objects.filter(merchant=shop, mode="test").latest("created_at")
    assert AuditEntry.objects.get(action="api_key.created").object_id == made.prefix
    assert api_client(plaintext).get("/v1/balance").status_code == 200
    again = owner.get(DEV)
    assert plaintext.encode() not in again.content
    assert made.prefix.encode() in again.content


def test_a_key_is_named_for_what_it_is_for_and_listed_by_its_name(shop, owner):
    key = owner.get(DEV).context["key_form"]["idempotency_key"].value()
    answer = owner.post(f"{DEV}keys/", {"idempotency_key": key, "name": "  Site de la boutique "})
    assert answer.status_code == 200
    made = ApiKey.objects.filter(merchant=shop, mode="test").latest("created_at")
    assert made.name == "Site de la boutique"
    assert AuditEntry.objects.get(action="api_key.created").details == {
        "name": "Site de la boutique"
    }
    listed = owner.get(DEV).content.decode()
    assert "<strong>Site de la boutique</strong>" in listed
    revoked = owner.post(f"{DEV}keys/{made.pk}/revoke/", follow=True).content.decode()
    assert f"Site de la boutique ({made.prefix})" in revoked  # "Key … revoked." by its name
    too_long = owner.post(
        f"{DEV}keys/", {"idempotency_key": key.replace("dash_", "dash_x"), "name": "x" * 61}
    )
    assert too_long.status_code == 400
    assert ApiKey.objects.filter(merchant=shop, name__startswith="xxx").count() == 0


def test_a_double_submitted_key_form_makes_one_key_and_never_shows_it_again(shop, owner):
    before = ApiKey.objects.filter(merchant=shop).count()
    key = owner.get(DEV).context["key_form"]["idempotency_key"].value()
    first = create_key(owner, key)
    second = create_key(owner, key)
    assert ApiKey.objects.filter(merchant=shop).count() == before + 1
    assert second.status_code == 302
    assert first.context["new_key"].encode() not in owner.get(second["Location"]).content


def test_revoking_a_key_stops_it(shop_keys, owner):
    plaintext = shop_keys.test_key.plaintext
    key = shop_keys.test_key.api_key
    assert owner.post(f"{DEV}keys/{key.pk}/revoke/").status_code == 302
    assert api_client(plaintext).get("/v1/balance").status_code == 401
    assert AuditEntry.objects.get(action="api_key.revoked").object_id == key.prefix


@pytest.mark.django_db(transaction=True)
def test_a_key_revoked_several_times_at_once_is_revoked_once(shop_keys):
    plaintext = shop_keys.test_key.plaintext
    key = shop_keys.test_key.api_key
    user = member(shop_keys.merchant, "owner")
    clients = iter([client_of(user) for _ in range(5)])
    statuses = race(lambda: next(clients).post(f"{DEV}keys/{key.pk}/revoke/").status_code, 5)
    assert statuses == [302] * 5
    assert api_client(plaintext).get("/v1/balance").status_code == 401
    rows = AuditEntry.objects.filter(action="api_key.revoked")
    assert list(rows.values_list("object_id", flat=True)) == [key.prefix]


def test_another_merchants_or_modes_key_is_missing(shop_keys, other_shop, owner):
    theirs = ApiKey.objects.filter(merchant=other_shop).first()
    live = shop_keys.live_key.api_key
    for key in (theirs, live):
        assert owner.post(f"{DEV}keys/{key.pk}/revoke/").status_code == 404
        key.refresh_from_db()
        assert key.revoked_at is None
    for unknown in ("x", "²", "9" * 30):  # "²" is a digit to Python, not a number
        assert owner.post(f"{DEV}keys/{unknown}/revoke/").status_code == 404


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("ftp://example.com/hook", "http(s)"),
        ("http://169.254.169.254/latest", "Webhooks cannot be sent there"),
        ("not a url", "http(s)"),
    ],
)
def test_the_webhook_url_is_checked_as_the_api_checks_it(shop, owner, url, words):
    answer = owner.post(f"{DEV}webhook/", {"url": url}, HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 400
    assert words in answer.content.decode()
    assert WebhookEndpoint.objects.get(merchant=shop, livemode=False).url == ""
    assert not AuditEntry.objects.exists()


def test_the_webhook_url_is_saved_and_cleared(shop, owner):
    owner.post(f"{DEV}webhook/", {"url": "https://example.com/hook"})
    endpoints = WebhookEndpoint.objects.filter(merchant=shop)
    assert endpoints.get(livemode=False).url == "https://example.com/hook"
    assert endpoints.get(livemode=True).url == ""  # the other mode's is its own
    owner.post(f"{DEV}webhook/", {"url": ""})
    assert endpoints.get(livemode=False).url == ""
    assert AuditEntry.objects.filter(action="webhook_endpoint.updated").count() == 2


def test_the_webhook_url_sent_again_unchanged_changes_nothing(shop, owner):
    """A double click or a reload: the URL it has already is no change, and none is recorded."""
    for _ in range(2):
        assert owner.post(f"{DEV}webhook/", {"url": "https://example.com/hook"}).status_code == 302
    endpoint = WebhookEndpoint.objects.get(merchant=shop, livemode=False)
    saved_at = endpoint.updated_at
    assert owner.post(f"{DEV}webhook/", {"url": "https://example.com/hook"}).status_code == 302
    endpoint.refresh_from_db()
    assert endpoint.updated_at == saved_at
    rows = AuditEntry.objects.filter(action="webhook_endpoint.updated")
    assert list(rows.values_list("object_id", flat=True)) == ["https://example.com/hook"]


def test_the_secret_is_revealed_on_demand_and_rotated(shop, owner):
    endpoint = WebhookEndpoint.objects.get(merchant=shop, livemode=False)
    assert endpoint.secret.encode() not in owner.get(DEV).content
    revealed = owner.post(f"{DEV}webhook/secret/")
    assert endpoint.secret.encode() in revealed.content
    rotated = rotate(owner)
    endpoint.refresh_from_db()
    assert endpoint.secret.encode() in rotated.content
    assert endpoint.previous_secret and endpoint.previous_secret_expires_at
    actions = list(AuditEntry.objects.order_by("created_at").values_list("action", flat=True))
    assert actions == ["api_key.revealed", "webhook_secret.rotated"]


def test_an_event_with_its_deliveries_and_a_resend(shop, owner):
    set_webhook_url(shop, "http://127.0.0.1:9/hook")
    event = record_event(shop, url="http://127.0.0.1:9/hook")
    shown = owner.get(f"{DEV}events/{event.id}/")
    assert shown.status_code == 200 and b"127.0.0.1:9/hook" in shown.content
    assert owner.get(f"{DEV}events/").context["page"].rows == [event]
    first = Delivery.objects.get(event=event)
    Delivery.objects.filter(pk=first.pk).update(attempts=1, status="failed")
    assert resend(owner, event).status_code == 302
    assert Delivery.objects.filter(event=event).count() == 2
    assert AuditEntry.objects.get(action="event.resent").object_id == event.id


def test_resends_are_bounded_per_event(shop, owner):
    set_webhook_url(shop, "http://127.0.0.1:9/hook")
    event = record_event(shop, url="http://127.0.0.1:9/hook")
    for _ in range(RESENDS_PER_EVENT):
        assert resend(owner, event).status_code == 302
    refused = resend(owner, event, HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 429
    assert b"already resent 5 times in the last hour" in refused.content
    assert Resend.objects.count() == RESENDS_PER_EVENT
    assert AuditEntry.objects.filter(action="event.resent").count() == RESENDS_PER_EVENT


def test_resends_are_bounded_per_merchant_and_mode(shop, owner):
    set_webhook_url(shop, "http://127.0.0.1:9/hook")
    set_webhook_url(shop, "http://127.0.0.1:9/hook", livemode=True)
    events = [record_event(shop, url="http://127.0.0.1:9/hook") for _ in range(21)]
    delivery = Delivery.objects.filter(event=events[0]).first()
    Resend.objects.bulk_create(
        Resend(event=events[i % 20], merchant=shop, livemode=False, delivery=delivery)
        for i in range(RESENDS_PER_ACCOUNT)
    )
    refused = resend(owner, events[20], HTTP_ACCEPT_LANGUAGE="fr")
    assert refused.status_code == 429
    assert "100" in refused.content.decode()
    assert Resend.objects.count() == RESENDS_PER_ACCOUNT
    # The other mode has its own bound.
    live = record_event(shop, url="http://127.0.0.1:9/hook", livemode=True)
    shop.live_approved = True
    shop.save(update_fields=["live_approved"])
    live_page = f"/dashboard/live/developers/events/{live.id}/"
    key = owner.get(live_page).context["resend_form"]["idempotency_key"].value()
    assert owner.post(f"{live_page}resend/", {"idempotency_key": key}).status_code == 302


def test_another_merchants_event_is_missing(shop, other_shop, owner):
    theirs = record_event(other_shop, url="http://127.0.0.1:9/hook")
    assert owner.get(f"{DEV}events/{theirs.id}/").status_code == 404
    assert resend(owner, theirs, key="dash_theirs").status_code == 404
    assert not Resend.objects.exists()


def test_an_events_data_is_shown_as_the_json_its_receiver_reads(shop, owner):
    event = record_event(shop)
    page = owner.get(f"/dashboard/test/developers/events/{event.id}/").content.decode()
    assert "&quot;livemode&quot;: false" in page  # JSON, escaped in the page
    assert "False" not in page


def test_a_rotation_sent_twice_rotates_once_and_keeps_the_receivers_secret(shop, owner):
    """A double click on "Rotate the secret": one new secret, and the one the merchant's
    receiver checks today still signs for 24 hours (a second rotation would have pushed it out)."""
    endpoint = WebhookEndpoint.objects.get(merchant=shop, livemode=False)
    key = owner.get(DEV).context["rotate_form"]["idempotency_key"].value()
    first = rotate(owner, key=key)
    again = rotate(owner, key=key, HTTP_ACCEPT_LANGUAGE="en")
    after = WebhookEndpoint.objects.get(pk=endpoint.pk)
    assert (first.status_code, again.status_code) == (200, 200)
    assert after.previous_secret == endpoint.secret
    assert after.secret != endpoint.secret
    assert after.secret.encode() in again.content
    assert b"already rotated the secret" in again.content
    assert AuditEntry.objects.filter(action="webhook_secret.rotated").count() == 1
    # A new form (the page loaded again) rotates again, as asked.
    assert rotate(owner).status_code == 200
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).previous_secret == after.secret


def test_a_rotation_without_its_forms_key_changes_nothing(shop, owner):
    endpoint = WebhookEndpoint.objects.get(merchant=shop, livemode=False)
    refused = owner.post(f"{DEV}webhook/rotate/", HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 400
    assert WebhookEndpoint.objects.get(pk=endpoint.pk).secret == endpoint.secret
    assert not AuditEntry.objects.exists()


def test_a_resend_sent_twice_counts_once(shop, owner):
    """A double click on "Resend": one resend of the event's five, one audit row."""
    set_webhook_url(shop, "http://127.0.0.1:9/hook")
    event = record_event(shop, url="http://127.0.0.1:9/hook")
    Delivery.objects.filter(event=event).update(attempts=1, status="failed")
    key = owner.get(f"{DEV}events/{event.id}/").context["resend_form"]["idempotency_key"].value()
    assert resend(owner, event, key=key).status_code == 302
    again = resend(owner, event, key=key, HTTP_ACCEPT_LANGUAGE="en")
    assert again.status_code == 302
    assert Resend.objects.filter(event=event).count() == 1
    assert Delivery.objects.filter(event=event).count() == 2
    assert AuditEntry.objects.filter(action="event.resent").count() == 1
    shown = owner.get(again["Location"], HTTP_ACCEPT_LANGUAGE="en").content
    assert b"already sent the event again" in shown
