"""Amounts customers type on a custom-amount payment link (docs/guides/payment-links.md): only
what people write is read as an amount, and the amount must be one the link can take: within
the networks' limits for mobile money, within CARD_CUSTOM_AMOUNT_LIMITS for a USD card payment,
else refused on the page in words that name the range."""

import pytest

from checkout.models import CheckoutSession
from config.settings import NETWORK_LIMITS_DEFAULT, parse_network_limits
from tests.links.factories import make_link
from tests.links.test_page import amount_error, client_in, pay, refused

pytestmark = pytest.mark.django_db


@pytest.fixture
def network_limits(settings):
    """The networks' limits as deployed (USD 1 to 2,500, CDF 100 to 5,000,000, whole units)."""
    settings.NETWORK_LIMITS = parse_network_limits(NETWORK_LIMITS_DEFAULT)


@pytest.mark.parametrize(
    "typed",
    [
        "1e9", "1E3", "2e2", "-5", "+5", "−5", "١٢٣", "۱۲", "12٫50", "²", "５０", "25 00",
        "2,500", "1.2.3", "12,", ".5", "0x10", "12'500", "Infinity", "NaN", "1_000",
    ],
)  # fmt: skip
def test_only_what_people_write_is_read_as_an_amount(merchant, typed):
    link = make_link(merchant, custom_amount=True)
    response = pay(client_in("fr"), link, amount=typed)
    assert response.status_code == 400, typed
    assert amount_error(response) == "Saisissez un montant comme 2500 ou 19,99."
    assert not CheckoutSession.objects.exists()


@pytest.mark.parametrize(
    ("typed", "amount"),
    [
        ("2500", 250000), ("2 500", 250000), ("2\u00a0500", 250000), ("2\u202f500", 250000),
        (" 1 000 000 ", 100000000), ("19,99", 1999), ("19.99", 1999), ("19,5", 1950),
    ],
)  # fmt: skip
def test_digits_groups_of_three_and_two_decimals_are_read(merchant, typed, amount):
    link = make_link(merchant, custom_amount=True, currency="USD")
    assert pay(client_in("fr"), link, amount=typed).status_code == 303, typed
    assert CheckoutSession.objects.get().amount == amount


@pytest.mark.parametrize(
    ("language", "limits"),
    [
        ("fr", "Saisissez un montant de 1 USD à 10 000 USD."),
        ("en", "Enter an amount from 1 USD to 10,000 USD."),
    ],
)
def test_a_usd_card_payment_is_typed_within_the_card_limits(
    merchant, network_limits, language, limits
):
    link = make_link(merchant, custom_amount=True, currency="USD")
    for typed in ("0,01", "0.99", "10 000,01", "1 000 000 000", "9 999 999 999,99", "0"):
        assert refused(client_in(language), link, typed) == limits, typed
    for typed, methods in (
        ("1", ["mobile_money", "card"]),
        ("12,50", ["card"]),
        ("2 500", ["mobile_money", "card"]),
        ("2 501", ["card"]),
        ("10 000", ["card"]),
    ):
        assert pay(client_in(language), link, amount=typed).status_code == 303, typed
        session = CheckoutSession.objects.order_by("-created_at").first()
        assert session.payment_methods == methods, typed


def test_the_card_limits_are_a_setting_and_the_page_says_what_each_takes(
    merchant, network_limits, settings
):
    settings.CARD_CUSTOM_AMOUNT_LIMITS = (500, 2000)  # USD 5.00 to 20.00
    link = make_link(merchant, custom_amount=True, currency="USD")
    assert refused(client_in("fr"), link, "4,50") == (
        "Un paiement par carte accepte de 5 USD à 20 USD. Le mobile money n’accepte que des "
        "dollars entiers : saisissez un montant sans centimes."
    )
    assert refused(client_in("en"), link, "2 501") == "Enter an amount from 1 USD to 2,500 USD."
    assert pay(client_in("fr"), link, amount="19,99").status_code == 303
    assert CheckoutSession.objects.get().payment_methods == ["card"]


def test_amounts_the_merchant_sets_are_not_the_customers(merchant, network_limits, api):
    """The card limits are for amounts typed on a public page: a fixed link's or a session the
    merchant's API opens keeps any amount card takes."""
    link = make_link(merchant, amount=50, currency="USD")
    response = pay(client_in("fr"), link)
    assert response.status_code == 303
    assert CheckoutSession.objects.get().payment_methods == ["card"]
    created = api.post(
        "/v1/checkout/sessions",
        {
            "amount": 5_000_000,
            "currency": "USD",
            "success_url": "https://a.cd/ok",
            "cancel_url": "https://a.cd/ko",
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json()["payment_methods"] == ["card"]
