"""The migration that makes deliveries follow the endpoint's URL: a pending delivery to its mode's
current default URL follows it from then on; one to another URL (a charge's callback_url), or one
already done, is left as it was."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("webhooks", "0005_verbose_names")]
AFTER = [("webhooks", "0006_resends_and_endpoint_deliveries")]


def test_pending_deliveries_to_the_default_url_follow_it(migrate_to):
    apps = migrate_to(BEFORE)
    Merchant = apps.get_model("payments", "Merchant")
    Endpoint = apps.get_model("webhooks", "WebhookEndpoint")
    Event = apps.get_model("webhooks", "Event")
    Delivery = apps.get_model("webhooks", "Delivery")
    merchant = Merchant.objects.create(id="mer_" + "c" * 24, name="Boutique Limete")
    Endpoint.objects.create(merchant=merchant, livemode=False, url="https://shop.example.cd/hooks")
    Endpoint.objects.create(merchant=merchant, livemode=True, url="")
    event = Event.objects.create(
        id="evt_" + "c" * 24, merchant=merchant, livemode=False, type="charge.succeeded", data={}
    )
    to_default = Delivery.objects.create(event=event, url="https://shop.example.cd/hooks")
    to_callback = Delivery.objects.create(event=event, url="https://shop.example.cd/orders/1")
    done = Delivery.objects.create(
        event=event, url="https://shop.example.cd/hooks", status="succeeded"
    )

    Delivery = migrate_to(AFTER).get_model("webhooks", "Delivery")
    follows = dict(Delivery.objects.values_list("id", "follows_endpoint"))
    assert follows == {to_default.id: True, to_callback.id: False, done.id: False}
