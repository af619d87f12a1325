"""The payment link's public page /pay/{slug}: what it shows, in French and English, the pay
button that opens a checkout session of the link, the 410 of a closed link, the throttle."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from checkout.models import CheckoutSession
from links.models import PaymentLink
from tests.factories import with_support_contact
from tests.links.factories import make_link, page_path

pytestmark = pytest.mark.django_db

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def csrf_client() -> Client:
    return Client(enforce_csrf_checks=True)


def pay(client: Client, link: PaymentLink, **fields):
    """Load the page, then press its button with `fields` (as a browser does, CSRF token and
    all)."""
    page = client.get(page_path(link))
    token = CSRF.search(page.content.decode()).group(1)
    return client.post(page_path(link), {"csrfmiddlewaretoken": token, **fields})


def test_page_shows_the_merchant_the_description_the_amount_and_support(merchant):
    with_support_contact(merchant, email="aide@boutique.cd", phone="+243 81 234 5678")
    link = make_link(merchant, amount=250000)
    response = Client().get(page_path(link))
    assert response.status_code == 200
    html = response.content.decode()
    assert '<html lang="fr">' in html
    assert merchant.name in html and "Sac de riz 25 kg" in html
    assert "2 500 CDF" in html and "aide@boutique.cd" in html and "+243 81 234 5678" in html
    assert "Payer 2 500 CDF" in html
    assert 'name="amount"' not in html and 'name="email"' in html
    assert response["Cache-Control"] == "no-store" and response["X-Frame-Options"] == "DENY"
    english = Client().get(page_path(link), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<html lang="en">' in english and "Pay 2,500 CDF" in english
    assert "Pay 2,500 CDF" in Client().get(page_path(link) + "?lang=en").content.decode()


def test_pay_button_opens_a_session_of_the_link_and_goes_to_its_page(merchant, settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.cd"
    link = make_link(merchant, metadata={"stock": "riz"})
    client = csrf_client()
    response = pay(client, link, email="client@example.cd")
    assert response.status_code == 303, response.content
    session = CheckoutSession.objects.get()
    assert response["Location"] == f"https://pay.example.cd/pay/{session.id}"
    assert session.payment_link_id == link.id and session.status == "open"
    assert (session.amount, session.currency) == (250000, "CDF")
    assert session.customer_email == "client@example.cd" and session.customer_language == "fr"
    assert session.metadata == {"stock": "riz"}
    assert session.cancel_url == f"https://pay.example.cd/pay/{link.slug}"
    assert session.success_url == f"https://pay.example.cd/pay/{link.slug}/done"
    # A second customer gets a session of their own.
    assert pay(csrf_client(), link).status_code == 303
    assert CheckoutSession.objects.filter(payment_link=link).count() == 2


def test_the_session_shows_its_payment_link_in_the_api(api, merchant):
    link = make_link(merchant, success_url="https://shop.example.cd/merci")
    pay(csrf_client(), link)
    session = CheckoutSession.objects.get()
    body = api.get(f"/v1/checkout/sessions/{session.id}").json()
    assert (
        body["payment_link"] == link.id and body["success_url"] == "https://shop.example.cd/merci"
    )
    created = api.post(
        "/v1/checkout/sessions",
        {
            "amount": 5000,
            "currency": "CDF",
            "success_url": "https://a.cd/ok",
            "cancel_url": "https://a.cd/ko",
        },
        format="json",
    ).json()
    assert created["payment_link"] is None


def test_custom_amount_is_typed_and_checked_against_the_networks_limits(merchant, settings):
    settings.NETWORK_LIMITS = {
        network: {"CDF": (10000, 500000), "USD": (100, 100000)}
        for network in settings.MOBILE_MONEY_NETWORKS
    }
    link = make_link(merchant, custom_amount=True)
    html = Client().get(page_path(link)).content.decode()
    assert 'name="amount"' in html and "Continuer vers le paiement" in html
    too_much = pay(csrf_client(), link, amount="6000")
    assert too_much.status_code == 400
    text = too_much.content.decode()
    assert "5 000,00 CDF" in text and 'id="amount-error"' in text  # the networks' rule, in words
    for typed in ("abc", "-5", "0", "12.345", "1e999999999"):
        response = pay(csrf_client(), link, amount=typed)
        assert response.status_code == 400, typed
        assert 'id="amount-error"' in response.content.decode()
    english = csrf_client()
    english.get(page_path(link) + "?lang=en")
    response = pay(english, link, amount="6000")
    assert "5,000.00 CDF" in response.content.decode()
    assert not CheckoutSession.objects.exists()
    assert pay(csrf_client(), link, amount="2 500").status_code == 303
    assert CheckoutSession.objects.get().amount == 250000


def test_custom_usd_amount_with_cents_goes_to_card(merchant):
    link = make_link(merchant, custom_amount=True, currency="USD")
    assert pay(csrf_client(), link, amount="19,99").status_code == 303
    session = CheckoutSession.objects.get()
    assert session.amount == 1999 and session.payment_methods == ["card"]


def test_bad_email_is_said_in_words(merchant):
    link = make_link(merchant)
    response = pay(csrf_client(), link, email="pas-une-adresse")
    assert response.status_code == 400 and 'id="email-error"' in response.content.decode()
    assert not CheckoutSession.objects.exists()


def test_pay_button_needs_the_csrf_token(merchant):
    link = make_link(merchant)
    assert csrf_client().post(page_path(link), {}).status_code == 403
    assert not CheckoutSession.objects.exists()


def _deactivated(link):
    link.active = False
    link.save()


def _expired(link):
    link.expires_at = timezone.now() - timedelta(seconds=1)
    link.save()


def _used_up(link):
    link.max_payments, link.payments_count = 2, 2
    link.save()


@pytest.mark.parametrize(
    ("close", "french", "english"),
    [
        (_deactivated, "Le marchand l’a désactivé.", "The merchant has deactivated it."),
        (_expired, "Le délai pour payer est passé.", "Its time to pay is over."),
        (
            _used_up,
            "Il a déjà reçu tous les paiements prévus.",
            "It has already received all the payments it was made for.",
        ),
    ],
)
def test_closed_link_answers_410_in_the_customers_language(merchant, close, french, english):
    link = make_link(merchant)
    client = csrf_client()
    page = client.get(page_path(link))
    token = CSRF.search(page.content.decode()).group(1)
    close(link)
    response = Client().get(page_path(link))
    assert response.status_code == 410
    assert "Ce lien de paiement n’est plus disponible" in response.content.decode()
    assert french in response.content.decode()
    response = Client().get(page_path(link), HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 410
    assert "This payment link is no longer available" in response.content.decode()
    assert english in response.content.decode()
    # The button of a page loaded before the link closed opens nothing.
    assert client.post(page_path(link), {"csrfmiddlewaretoken": token}).status_code == 410
    assert not CheckoutSession.objects.exists()


def test_unknown_slug_is_not_found(db):
    assert Client().get("/pay/AbCdEfGhIjKlMnOpQrStUv").status_code == 404
    assert Client().get("/pay/AbCdEfGhIjKlMnOpQrStUv/qr.png").status_code == 404


def test_sessions_opened_from_one_address_are_throttled(merchant, settings):
    settings.THROTTLE_PAYMENT_LINK_SESSIONS = "2/h"
    link = make_link(merchant)
    from django.core.cache import cache

    cache.clear()
    for _ in range(2):
        assert pay(csrf_client(), link).status_code == 303
    refused = pay(csrf_client(), link)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "Trop de tentatives de paiement" in refused.content.decode()
    assert CheckoutSession.objects.count() == 2
    # Another address is not held back.
    other = Client(enforce_csrf_checks=True, REMOTE_ADDR="10.1.2.3")
    assert pay(other, link).status_code == 303
