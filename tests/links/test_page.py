"""The payment link's public page /pay/{slug}: what it shows, in French and English, the pay
button that opens a checkout session of the link, the 410 of a closed link, the throttle."""

import html
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


@pytest.mark.parametrize(
    ("link_left", "session_left"),
    [
        (None, timedelta(hours=24)),  # no expiry: a session's usual lifetime
        (timedelta(days=3), timedelta(hours=24)),
        (timedelta(hours=2), timedelta(hours=2)),  # the link's sessions end with it
        (timedelta(minutes=5), timedelta(minutes=30)),  # but leave the customer time to pay
    ],
)
def test_a_session_of_a_link_that_expires_ends_with_it(merchant, link_left, session_left):
    now = timezone.now()
    link = make_link(merchant, expires_at=link_left and now + link_left)
    assert pay(csrf_client(), link).status_code == 303
    session = CheckoutSession.objects.get()
    assert abs(session.expires_at - (now + session_left)) < timedelta(seconds=30)


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
    assert "Saisissez un montant de 100 CDF à 5 000 CDF." in amount_error(too_much)
    for typed in ("abc", "-5", "0", "12.345", "1e999999999"):
        response = pay(csrf_client(), link, amount=typed)
        assert response.status_code == 400, typed
        assert 'id="amount-error"' in response.content.decode()
    english = csrf_client()
    english.get(page_path(link) + "?lang=en")
    response = pay(english, link, amount="6000")
    assert amount_error(response) == "Enter an amount from 100 CDF to 5,000 CDF."
    assert not CheckoutSession.objects.exists()
    assert pay(csrf_client(), link, amount="2 500").status_code == 303
    assert CheckoutSession.objects.get().amount == 250000


def test_custom_usd_amount_with_cents_goes_to_card(merchant):
    link = make_link(merchant, custom_amount=True, currency="USD")
    assert pay(csrf_client(), link, amount="19,99").status_code == 303
    session = CheckoutSession.objects.get()
    assert session.amount == 1999 and session.payment_methods == ["card"]


# --- Amounts checkout refuses, in the customer's words (never `amount`, never minor units) ------

ERROR = re.compile(r'<p class="error" id="amount-error">(.*?)</p>', re.S)
ALERT = re.compile(r'<div class="alert" role="alert"><p>(.*?)</p>', re.S)
# What checkout's amount_invalid says to integrators: the `amount` param, minor units.
INTEGRATOR_WORDS = ("amount must", "amount doit", "multiple", "between", "compris entre", "0000")


def client_in(language: str) -> Client:
    """A customer whose browser asks for `language`."""
    return Client(enforce_csrf_checks=True, HTTP_ACCEPT_LANGUAGE=language)


def amount_error(response) -> str:
    return html.unescape(ERROR.search(response.content.decode()).group(1))


def refused(client: Client, link: PaymentLink, typed: str) -> str:
    """Type `typed` and press pay: the page refuses it (400, no session), and says why."""
    response = pay(client, link, amount=typed)
    assert response.status_code == 400, typed
    said = amount_error(response)
    assert not any(word in said for word in INTEGRATOR_WORDS), said
    assert not CheckoutSession.objects.exists()
    return said


@pytest.fixture
def apart_limits(settings):
    """Each network its own limits: the page says the lowest minimum to the highest maximum."""
    settings.NETWORK_LIMITS = {
        "AIRTEL_MONEY": {"CDF": (10000, 300000000), "USD": (100, 150000)},
        "VODACOM_MPESA": {"CDF": (20000, 500000000), "USD": (200, 250000)},
        "ORANGE_MONEY": {"CDF": (50000, 400000000), "USD": (500, 200000)},
    }


def test_custom_usd_amount_outside_the_networks_limits_goes_to_card(merchant, apart_limits):
    link = make_link(merchant, custom_amount=True, currency="USD")
    for typed, amount in (("1,50", 150), ("3 000", 300000)):
        assert pay(csrf_client(), link, amount=typed).status_code == 303, typed
        session = CheckoutSession.objects.get(amount=amount)
        assert session.payment_methods == ["card"]


@pytest.mark.parametrize(
    ("language", "cents", "limits"),
    [
        (
            "fr",
            "Le mobile money n’accepte que des francs entiers : saisissez un montant sans "
            "centimes.",
            "Saisissez un montant de 100 CDF à 5 000 000 CDF.",
        ),
        (
            "en",
            "Mobile money takes whole francs only: enter an amount without cents.",
            "Enter an amount from 100 CDF to 5,000,000 CDF.",
        ),
    ],
)
def test_cdf_amount_refused_is_said_in_the_customers_words(
    merchant, apart_limits, language, cents, limits
):
    link = make_link(merchant, custom_amount=True)
    assert refused(client_in(language), link, "19,99") == cents
    assert refused(client_in(language), link, "1") == limits
    assert refused(client_in(language), link, "99") == limits
    assert refused(client_in(language), link, "5 000 001") == limits
    assert pay(client_in(language), link, amount="100").status_code == 303


@pytest.mark.parametrize(
    ("language", "cents", "limits"),
    [
        (
            "fr",
            "Le mobile money n’accepte que des dollars entiers : saisissez un montant sans "
            "centimes.",
            "Saisissez un montant de 1 USD à 2 500 USD.",
        ),
        (
            "en",
            "Mobile money takes whole dollars only: enter an amount without cents.",
            "Enter an amount from 1 USD to 2,500 USD.",
        ),
    ],
)
def test_usd_amount_refused_without_card_is_said_in_the_customers_words(
    merchant, apart_limits, language, cents, limits
):
    merchant.card_rail_enabled = False
    merchant.save()
    link = make_link(merchant, custom_amount=True, currency="USD")
    assert refused(client_in(language), link, "19,99") == cents
    assert refused(client_in(language), link, "0,50") == cents
    assert refused(client_in(language), link, "2 501") == limits
    assert pay(client_in(language), link, amount="2500").status_code == 303
    assert CheckoutSession.objects.get().payment_methods == ["mobile_money"]


def test_amount_between_two_networks_limits_is_said_network_by_network(merchant, settings):
    settings.NETWORK_LIMITS = {
        "AIRTEL_MONEY": {"CDF": (10000, 100000), "USD": (100, 250000)},
        "VODACOM_MPESA": {"CDF": (500000, 1000000), "USD": (100, 250000)},
        "ORANGE_MONEY": {"CDF": (500000, 2000000), "USD": (100, 250000)},
    }
    link = make_link(merchant, custom_amount=True)
    assert refused(client_in("fr"), link, "2 000") == (
        "Aucun réseau mobile money n’accepte ce montant. Airtel Money accepte de 100 CDF à "
        "1 000 CDF. Vodacom M-Pesa accepte de 5 000 CDF à 10 000 CDF. Orange Money accepte de "
        "5 000 CDF à 20 000 CDF."
    )
    assert refused(client_in("fr"), link, "50 000") == (
        "Saisissez un montant de 100 CDF à 20 000 CDF."
    )


@pytest.mark.parametrize(
    ("language", "said"),
    [
        (
            "fr",
            "Ce montant ne peut pas être payé ici pour le moment. Demandez un nouveau lien de "
            "paiement à {name}.",
        ),
        ("en", "This amount cannot be paid here at the moment. Ask {name} for a new payment link."),
    ],
)
def test_fixed_amount_no_longer_taken_sends_the_customer_to_the_merchant(
    merchant, settings, language, said
):
    link = make_link(merchant, amount=250000)
    settings.NETWORK_LIMITS = {
        network: {"CDF": (500000, 500000000), "USD": (100, 250000)}
        for network in settings.MOBILE_MONEY_NETWORKS
    }
    response = pay(client_in(language), link)
    assert response.status_code == 400
    alert = html.unescape(ALERT.search(response.content.decode()).group(1))
    assert alert == said.format(name=merchant.name)
    assert not any(word in alert for word in INTEGRATOR_WORDS), alert
    assert not CheckoutSession.objects.exists()


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


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_a_cdf_link_promises_no_card_and_a_test_link_says_its_numbers(merchant, lang):
    words = {
        "fr": ("par mobile money à la page suivante", "ou carte", "Mode test : aucun argent"),
        "en": ("by mobile money on the next page", "or card", "Test mode: no money moves"),
    }[lang]
    francs = Client().get(page_path(make_link(merchant)) + f"?lang={lang}").content.decode()
    assert words[0] in francs and words[1] not in francs
    assert words[2] in francs and "0812 345 001" in francs
    dollars = make_link(merchant, currency="USD", amount=2000)
    page = Client().get(page_path(dollars) + f"?lang={lang}").content.decode()
    assert words[1] in page  # USD: the merchant's card rail is offered on the next page
