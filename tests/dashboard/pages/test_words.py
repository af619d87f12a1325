"""A payment's page in a shopkeeper's words: a refund of part of it says "partially refunded",
its timeline names its webhook events in words (the API's type kept beside the id), and a
delivery that got no answer says so in the page's language."""

import pytest

from payments.services.refunds import refund_create
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import set_webhook_url
from webhooks.models import Delivery
from webhooks.services import delivery_send

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "fr",
            [
                "partiellement remboursé",
                "Événement webhook : paiement réussi",
                "Pas de réponse : la connexion a échoué ou a expiré.",
            ],
        ),
        (
            "en",
            [
                "partially refunded",
                "Webhook event: payment succeeded",
                "No answer: the connection failed or timed out.",
            ],
        ),
    ],
)
def test_a_payment_partly_refunded_and_its_deliveries_in_words(settings, shop, owner, lang, words):
    settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS = True
    set_webhook_url(shop, "http://127.0.0.1:9/hook")  # nothing listens: no answer
    charge = succeeded_mobile_money_charge(shop, amount=500000)
    for delivery in Delivery.objects.filter(event__merchant=shop):
        delivery_send(delivery_id=delivery.pk)
    refund_create(charge=charge, amount=100000)

    listed = owner.get("/dashboard/test/payments/", HTTP_ACCEPT_LANGUAGE=lang).content.decode()
    assert words[0] in listed
    page = owner.get(f"/dashboard/test/payments/{charge.id}/", HTTP_ACCEPT_LANGUAGE=lang)
    text = page.content.decode()
    assert words[0].capitalize() in text
    for said in words[1:]:
        assert said in text
    if lang == "fr":
        assert "No answer: the connection" not in text
    assert "Event charge.succeeded" not in text
