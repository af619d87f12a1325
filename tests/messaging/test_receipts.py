"""Receipts by SMS: a completed checkout session (a payment link's too) sends the paying phone a
short receipt in its page's language, with the operator's reference and an unguessable link to
its page (/r/{token}); a card payment only with the session's customer_phone; never when the
merchant turned them off; one message, counted as a phone counts it."""

import re
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from checkout import services as checkout
from links import services as links
from messaging import gsm, receipts, services
from messaging.models import Message, SmsReceipt
from payments.providers.base import ProviderOutcome
from payments.services import charges
from tests.factories import make_session, with_support_contact
from tests.links.factories import make_link, pay_session

pytestmark = pytest.mark.django_db(transaction=True)

URL = re.compile(r"https://pay\.example\.cd/r/([A-Za-z0-9]{22})$")


@pytest.fixture(autouse=True)
def _address(settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.cd"


def paid_link(merchant, *, language="fr", reference="MP241121.1030.A12345", **link):
    session = links.link_open_session(link=make_link(merchant, **link), language=language)
    return pay_session(session, locale=language, provider_reference=reference)


def test_a_payment_link_paid_by_phone_leaves_a_receipt_in_the_test_inbox(merchant, client):
    merchant.name = "Boutique Lumière"
    merchant.save()
    with_support_contact(merchant, phone="+243 81 234 5678")
    charge = paid_link(merchant, amount=250000)
    (message,) = Message.objects.all()
    assert (message.to, message.kind, message.status, message.livemode) == (
        "+243812345678",
        "receipt",
        "sent",
        False,
    )
    assert message.body.startswith(
        "Paiement de 2 500 CDF à Boutique Lumière confirmé. Réf. MP241121.1030.A12345. Détails : "
    )
    assert gsm.encoding(message.body) == gsm.GSM7 and gsm.fits_one(message.body)
    token = URL.search(message.body).group(1)
    page = client.get(f"/r/{token}")
    assert page.status_code == 200
    html = page.content.decode()
    assert '<html lang="fr">' in html and "<script" not in html
    assert "Boutique Lumière" in html and "2 500 CDF" in html and charge.id in html
    assert "MP241121.1030.A12345" in html and "Référence de l’opérateur" in html
    assert "+243 81 234 5678" in html
    english = client.get(f"/r/{token}?lang=en").content.decode()
    assert '<html lang="en">' in english and "Operator reference" in english
    assert "2,500 CDF" in english
    assert client.get(f"/r/{token[:-1]}x").status_code == 404


def test_the_receipt_speaks_the_language_of_the_page(merchant):
    paid_link(merchant, language="en", amount=2500, currency="USD", reference="PP1")
    (message,) = Message.objects.all()
    assert message.body.startswith(
        f"Payment of 25 USD to {merchant.name} confirmed. Ref. PP1. Receipt: "
    )
    assert SmsReceipt.objects.get().language == "en"


def test_a_card_payment_gets_one_only_with_the_sessions_phone(merchant):
    for phone in ("", "+243991234567"):
        session = make_session(merchant, amount=1999, currency="USD", customer_phone=phone)
        charge = checkout.session_attempt_create(
            session_id=session.id, payment_method="card", locale="en"
        )
        charges.charge_apply_outcome(
            charge_id=charge.id,
            outcome=ProviderOutcome(status="succeeded", provider_reference="CY9"),
        )
    (message,) = Message.objects.all()
    assert message.to == "+243991234567" and "Ref. CY9." in message.body


def test_none_when_the_merchant_turned_them_off(merchant):
    services.sms_receipts_set(merchant=merchant, enabled=False)
    paid_link(merchant)
    assert not Message.objects.exists() and not SmsReceipt.objects.exists()
    services.sms_receipts_set(merchant=merchant, enabled=True)
    paid_link(merchant)
    assert Message.objects.count() == 1


def test_tokens_are_unguessable_and_each_payment_has_its_own(merchant):
    paid_link(merchant)
    paid_link(merchant)
    tokens = [r.token for r in SmsReceipt.objects.all()]
    assert len(set(tokens)) == 2
    assert all(re.fullmatch(r"[A-Za-z0-9]{22}", token) for token in tokens)


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_long_name_outside_gsm7_still_fits_one_message(language):
    url = "https://pay.example.cd/r/" + "A" * 22
    body = receipts.receipt_text(
        merchant_name="Crêperie et Pâtisserie Française du Boulevard du 30 Juin, Gombe",
        amount="1 250 000 CDF",
        reference="MP241121.1030.A12345",
        url=url,
        language=language,
    )
    assert gsm.encoding(body) == gsm.GSM7 and gsm.fits_one(body)
    assert body.endswith(url) and "1 250 000 CDF" in body and "MP241121.1030.A12345" in body
    assert "Creperie" in body  # ê is not GSM-7: written without its accent


def test_a_short_unicode_text_stays_unicode():
    body = receipts.receipt_text(
        merchant_name="Ça", amount="5 CDF", reference="", url="u", language="fr"
    )
    assert body == "Paiement de 5 CDF à Ça confirmé. Détails : u"
    assert gsm.fits_one(body)


@pytest.mark.parametrize(
    ("zone", "named"), [("Africa/Kinshasa", "WAT"), ("Africa/Lubumbashi", "CAT")]
)
def test_the_receipt_and_the_done_page_tell_the_time_of_the_merchants_zone(
    merchant, client, zone, named
):
    """A customer in Lubumbashi reads the hour on their own clock, its zone named; never UTC."""
    merchant.time_zone = zone
    merchant.save(update_fields=["time_zone"])
    charge = paid_link(merchant, amount=250000)
    paid_at = timezone.localtime(charge.finalized_at, ZoneInfo(zone))
    shown = f"{paid_at:%H:%M} {named}"
    token = URL.search(Message.objects.get().body).group(1)
    receipt = client.get(f"/r/{token}").content.decode()
    slug = charge.checkout_session.payment_link.slug
    session_id = charge.checkout_session_id
    done = client.get(f"/pay/{slug}/done?session_id={session_id}").content.decode()
    for page in (receipt, done):
        assert shown in page and "UTC" not in page
