"""The amounts each network takes, per currency: read from NETWORK_LIMITS (whole units, on top of
the defaults), enforced on charges, payouts and checkout sessions with 400 amount_invalid naming
the limits."""

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings import NETWORK_LIMITS_DEFAULT, parse_network_limits
from payments.models import Charge, Payout
from tests.factories import make_session, succeeded_mobile_money_charge
from tests.helpers import assert_error

pytestmark = pytest.mark.django_db

MM = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
DEFAULTS = parse_network_limits(NETWORK_LIMITS_DEFAULT)


# --- Configuration ----------------------------------------------------------------------------


def test_the_defaults_are_those_of_drc_mobile_money_in_minor_units():
    """CDF 100.00 to 5 000 000.00 and USD 1.00 to 2 500.00 on every network."""
    assert DEFAULTS == {
        network: {"CDF": (10_000, 500_000_000), "USD": (100, 250_000)}
        for network in ("AIRTEL_MONEY", "VODACOM_MPESA", "ORANGE_MONEY")
    }


def test_a_setting_changes_what_it_names_and_keeps_the_rest():
    limits = parse_network_limits("USD=2-1000, AIRTEL_MONEY:CDF=500-2500000", DEFAULTS)
    assert limits["AIRTEL_MONEY"] == {"CDF": (50_000, 250_000_000), "USD": (200, 100_000)}
    assert limits["ORANGE_MONEY"] == {"CDF": (10_000, 500_000_000), "USD": (200, 100_000)}
    # The widest limits the API allows: 1 to 9 999 999 999 whole units.
    assert parse_network_limits("CDF=1-9999999999", DEFAULTS)["VODACOM_MPESA"]["CDF"] == (
        100,
        999_999_999_900,
    )
    assert parse_network_limits("", DEFAULTS) == DEFAULTS


@pytest.mark.parametrize(
    "text",
    [
        "EUR=1-100",
        "MTN:CDF=1-100",
        "CDF=100",
        "CDF=0-100",
        "CDF=200-100",
        "CDF=1-10000000000",
        "CDF=1.5-100",
        "CDF=-1-100",
        "vodacom_mpesa:CDF=1-100",
        "card:USD=1-100",
    ],
)
def test_a_setting_that_cannot_be_read_stops_the_service(text):
    with pytest.raises(ImproperlyConfigured, match="NETWORK_LIMITS"):
        parse_network_limits(text, DEFAULTS)


# --- Charges ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "currency, amount", [("CDF", 9_900), ("CDF", 500_000_100), ("USD", 0), ("USD", 250_100)]
)
def test_a_charge_outside_the_networks_limits_is_amount_invalid_naming_them(
    api, default_limits, currency, amount
):
    response = api.post(
        "/v1/charges", {**MM, "currency": currency, "amount": amount}, format="json"
    )
    assert_error(response, 400, "invalid_request_error", "amount_invalid")
    error = response.json()["error"]
    assert error["param"] == "amount"
    if amount:  # 0 is refused by the API's own range first
        low, high = default_limits["VODACOM_MPESA"][currency]
        assert f"between {low} and {high}" in error["message"]
        assert error["message"].startswith("Vodacom M-Pesa takes ")
    assert not Charge.objects.exists()


def test_the_limits_are_inclusive_and_named_in_the_requests_language(api, default_limits):
    for amount in (10_000, 500_000_000):
        assert api.post("/v1/charges", {**MM, "amount": amount}, format="json").status_code == 201
    error = api.post("/v1/charges", {**MM, "amount": 100}, format="json").json()["error"]
    assert error["message"] == (
        "Vodacom M-Pesa takes 100.00 CDF to 5,000,000.00 CDF: amount must be between 10000 "
        "and 500000000."
    )
    french = api.post(
        "/v1/charges", {**MM, "amount": 100}, format="json", HTTP_ACCEPT_LANGUAGE="fr"
    ).json()["error"]
    assert french["message"] == (
        "Vodacom M-Pesa accepte de 100,00 CDF à 5 000 000,00 CDF : amount doit être compris "
        "entre 10000 et 500000000."
    )


def test_each_network_has_its_own_limits(api, settings, default_limits):
    settings.NETWORK_LIMITS = {
        **default_limits,
        "AIRTEL_MONEY": {**default_limits["AIRTEL_MONEY"], "CDF": (10_000, 100_000_000)},
    }
    body = {**MM, "amount": 200_000_000}
    airtel = {**body, "phone": "+243971234567", "network": "AIRTEL_MONEY"}
    refused = api.post("/v1/charges", airtel, format="json")
    assert_error(refused, 400, "invalid_request_error", "amount_invalid")
    assert "Airtel Money takes 100.00 CDF to 1,000,000.00 CDF" in refused.json()["error"]["message"]
    assert api.post("/v1/charges", body, format="json").status_code == 201


def test_card_charges_have_no_network_limits(api, default_limits):
    response = api.post(
        "/v1/charges",
        {"amount": 999_999_999_999, "currency": "USD", "payment_method": "card"},
        format="json",
    )
    assert response.status_code == 201, response.content


def test_the_whole_units_rule_comes_before_the_limits(api, default_limits):
    error = api.post("/v1/charges", {**MM, "amount": 150}, format="json").json()["error"]
    assert error["code"] == "amount_invalid" and "whole units" in error["message"]


# --- Payouts ----------------------------------------------------------------------------------


def test_a_payout_outside_the_limits_is_refused_before_the_balance_is_touched(
    api, merchant, default_limits
):
    succeeded_mobile_money_charge(merchant, amount=50_000)
    body = {**MM, "amount": 5_000}
    response = api.post("/v1/payouts", body, format="json")
    assert_error(response, 400, "invalid_request_error", "amount_invalid")
    assert "between 10000 and 500000000" in response.json()["error"]["message"]
    usd = api.post("/v1/payouts", {**body, "currency": "USD", "amount": 300_000}, format="json")
    assert_error(usd, 400, "invalid_request_error", "amount_invalid")
    assert not Payout.objects.exists()
    assert api.post("/v1/payouts", {**body, "amount": 10_000}, format="json").status_code == 201


# --- Checkout sessions ------------------------------------------------------------------------


SESSION = {
    "success_url": "https://shop.example.cd/merci",
    "cancel_url": "https://shop.example.cd/panier",
}


def test_a_session_no_network_can_take_is_refused_unless_card_can(api, default_limits):
    small = api.post(
        "/v1/checkout/sessions", {**SESSION, "amount": 5_000, "currency": "CDF"}, format="json"
    )
    assert_error(small, 400, "invalid_request_error", "amount_invalid")
    message = small.json()["error"]["message"]
    assert message.startswith("No mobile money network takes this amount:")
    assert "Airtel Money takes 100.00 CDF to 5,000,000.00 CDF" in message
    big = api.post(
        "/v1/checkout/sessions", {**SESSION, "amount": 300_000, "currency": "USD"}, format="json"
    )
    assert big.status_code == 201, big.content
    assert big.json()["payment_methods"] == ["card"]


def test_a_session_within_some_networks_limits_offers_mobile_money(merchant, default_limits):
    assert make_session(merchant, amount=250_000).payment_methods == ["mobile_money"]
    usd = make_session(merchant, amount=2000, currency="USD")
    assert usd.payment_methods == ["mobile_money", "card"]
