"""Price plans: the fee's arithmetic, the default plan of the settings and its check, a merchant's
own rates over it, the most specific rate, and GET /v1/pricing."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings.payments import PRICING_DEFAULT_PLAN
from payments import pricing
from payments.checks import pricing_default_check
from payments.models import PriceRate
from tests.pricing import rate

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("amount", "rate_bp", "fixed", "fee"),
    [
        (25000, 300, 0, 750),  # 3.00 % of 250 CDF
        (1999, 390, 30, 108),  # 77.961 rounds to 78, plus 30
        (50, 100, 0, 1),  # 0.5 rounds half up
        (49, 100, 0, 0),  # 0.49 rounds down
        (150, 100, 0, 2),  # 1.5 rounds half up
        (100, 250, 0, 3),  # 2.5 rounds half up, not to even
        (20, 0, 30, 20),  # never more than the amount
        (100, 10000, 0, 100),  # all of it
        (0, 300, 0, 0),
        (10**15, 9999, 10**6, 999900000000000 + 10**6),  # no float anywhere
    ],
)
def test_a_fee_is_the_rate_rounded_half_up_plus_the_fixed_part_at_most_the_amount(
    amount, rate_bp, fixed, fee
):
    assert pricing.fee_of(amount, rate_bp=rate_bp, fixed=fixed) == fee


def test_the_documented_default_plan_is_what_an_unset_environment_gives():
    """Without PRICING_DEFAULT the service runs on PRICING_DEFAULT_PLAN (the suite itself sets
    a fee-free plan, tests/env.py), and that plan passes its own check."""
    env = {k: v for k, v in os.environ.items() if k != "PRICING_DEFAULT"}
    code = (
        "import django, json; django.setup(); from django.conf import settings;"
        "print(json.dumps(settings.PRICING_DEFAULT))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(out.stdout.strip().splitlines()[-1]) == PRICING_DEFAULT_PLAN
    plan = pricing.plan_from_setting(PRICING_DEFAULT_PLAN)
    card = pricing.rate_in(
        list(plan), kind="charge", payment_method="card", network="", currency="USD"
    )
    assert (card.rate_bp, card.fixed) == (390, 30)
    airtel = pricing.rate_in(
        list(plan),
        kind="charge",
        payment_method="mobile_money",
        network="AIRTEL_MONEY",
        currency="CDF",
    )
    assert airtel.rate_bp == 300


@pytest.mark.parametrize(
    ("plan", "says"),
    [
        ({"kind": "charge"}, "PRICING_DEFAULT is a JSON list"),
        ([rate(kind="gift")], "rate 1: kind 'gift'"),
        ([rate(), rate(bp=10001)], "rate 2: rate_bp is at most 10000"),
        ([rate(fixed=-1)], "fixed is a whole number"),
        ([rate(bp=2.5)], "rate_bp is a whole number"),
        ([rate(kind="payout", days=2)], "available_after_days is for charges only"),
        ([rate(network="AIRTEL_MONEY")], "names its payment_method"),
        ([rate(currency="EUR")], "currency 'EUR'"),
        ([rate(), rate()], "rate 2: given twice"),
        ([{**rate(), "rate": 3}], "unknown fields ['rate']"),
    ],
)
def test_a_wrong_default_plan_stops_the_service_naming_the_rate(settings, plan, says):
    settings.PRICING_DEFAULT = plan
    with pytest.raises(ImproperlyConfigured, match=None) as raised:
        pricing.default_plan()
    assert says in str(raised.value)
    [error] = pricing_default_check(None)
    assert error.id == "payments.E001" and says in error.msg


@pytest.mark.django_db
def test_the_most_specific_rate_applies_and_a_merchants_own_replace_the_defaults(
    settings, merchant
):
    settings.PRICING_DEFAULT = [
        rate(bp=100),
        rate(method="mobile_money", bp=200),
        rate(method="mobile_money", network="AIRTEL_MONEY", bp=300),
        rate(kind="payout", method="mobile_money", bp=150),
    ]

    def charge_rate(network="", method="mobile_money", currency="CDF"):
        return pricing.rate_for(
            merchant, kind="charge", payment_method=method, network=network, currency=currency
        ).rate_bp

    assert charge_rate("AIRTEL_MONEY") == 300  # the network's
    assert charge_rate("VODACOM_MPESA") == 200  # the method's
    assert charge_rate(method="card") == 100  # the kind's
    assert charge_rate(currency="USD") == 0  # none: no fee
    PriceRate.objects.create(
        merchant=merchant, kind="charge", payment_method="mobile_money", currency="CDF", rate_bp=180
    )
    assert charge_rate("VODACOM_MPESA") == 180
    assert charge_rate("AIRTEL_MONEY") == 300  # the default's network rate is still more specific


@pytest.mark.django_db
def test_get_pricing_shows_the_plan_the_same_in_both_modes(settings, api, live_api, merchant):
    settings.PRICING_DEFAULT = [
        rate(method="mobile_money", bp=300),
        rate(method="card", currency="USD", bp=390, fixed=30, days=7),
        rate(kind="settlement", currency="USD", fixed=1000),
    ]
    PriceRate.objects.create(
        merchant=merchant,
        kind="payout",
        payment_method="mobile_money",
        network="ORANGE_MONEY",
        currency="CDF",
        rate_bp=120,
    )
    body = api.get("/v1/pricing").json()
    assert body == {
        "object": "pricing",
        "livemode": False,
        "rates": [
            rate(method="mobile_money", bp=300),
            rate(method="card", currency="USD", bp=390, fixed=30, days=7),
            rate(kind="payout", method="mobile_money", network="ORANGE_MONEY", bp=120),
            rate(kind="settlement", currency="USD", fixed=1000),
        ],
    }
    live = live_api.get("/v1/pricing").json()
    assert live == {**body, "livemode": True}


def test_get_pricing_needs_a_key(anon):
    assert anon.get("/v1/pricing").status_code == 401
