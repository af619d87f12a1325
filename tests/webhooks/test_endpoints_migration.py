"""The migration to per-mode endpoints: an existing merchant keeps its secret for live mode (its
receivers already verify live events with it), gets a new test secret, and its URL in both modes."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("payments", "0003_late_payments"), ("webhooks", "0002_webhooks_deliveries")]
AFTER = [("payments", "0004_merchant_webhook_fields_moved")]


def test_existing_merchants_keep_their_secret_for_live_and_get_a_new_test_one(migrate_to):
    Merchant = migrate_to(BEFORE).get_model("payments", "Merchant")
    kept = Merchant.objects.create(
        id="mer_" + "a" * 24,
        name="Boutique Gombe",
        webhook_url="https://shop.example.cd/hooks",
        webhook_secret="whsec_" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY",
    )
    bare = Merchant.objects.create(id="mer_" + "b" * 24, name="No URL", webhook_url="")

    Endpoint = migrate_to(AFTER).get_model("webhooks", "WebhookEndpoint")
    live = Endpoint.objects.get(merchant_id=kept.id, livemode=True)
    test = Endpoint.objects.get(merchant_id=kept.id, livemode=False)
    assert (live.url, live.secret) == ("https://shop.example.cd/hooks", kept.webhook_secret)
    assert test.url == "https://shop.example.cd/hooks"
    assert test.secret.startswith("whsec_") and test.secret != kept.webhook_secret
    assert Endpoint.objects.filter(merchant_id=bare.id).count() == 2
    assert set(Endpoint.objects.filter(merchant_id=bare.id).values_list("url", flat=True)) == {""}
