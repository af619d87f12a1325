"""The default price plan the documentation states is the one the settings hold, and the
PRICING_DEFAULT examples it gives are plans the service accepts (the configuration page's example
also runs, through `manage.py check`, in test_readme)."""

import json
import re

from django.conf import settings

from payments.pricing import plan_from_setting

BASE = settings.BASE_DIR
METHODS = {"mobile money": "mobile_money", "card": "card"}


def documented_plan() -> list[dict]:
    """The rows of the default plan's table on the configuration page, as rates."""
    page = (BASE / "docs/operations/configuration.md").read_text(encoding="utf-8")
    table = page.split("| kind | payment method | currency | rate_bp | fixed |", 1)[1]
    rates = []
    for line in table.strip().splitlines()[1:]:
        if not line.startswith("|"):
            break
        kind, method, currencies, rate_bp, fixed = (
            cell.strip() for cell in line.strip("|").split("|")
        )
        for currency in currencies.split(", "):
            rates.append(
                {
                    "kind": kind,
                    "payment_method": METHODS.get(method),
                    "network": None,
                    "currency": currency,
                    "rate_bp": int(rate_bp),
                    "fixed": int(fixed.split()[0]),
                    "available_after_days": 0,
                }
            )
    return rates


def key(rate: dict) -> tuple:
    return (rate["kind"], rate["payment_method"] or "", rate["currency"])


def test_the_configuration_page_states_the_default_plan():
    documented = sorted(documented_plan(), key=key)
    assert len(documented) >= 10
    assert documented == sorted(settings.PRICING_DEFAULT_PLAN, key=key)


def test_the_guide_states_the_default_rates_in_percent():
    guide = (BASE / "docs/guides/fees-and-balance.md").read_text(encoding="utf-8")
    for rate in settings.PRICING_DEFAULT_PLAN:
        if rate["rate_bp"]:
            assert f"{rate['rate_bp'] // 100}.{rate['rate_bp'] % 100:02d} %" in guide, rate


def test_the_example_plans_are_accepted():
    env_example = (BASE / "deploy/congopay.env.example").read_text(encoding="utf-8")
    (value,) = re.findall(r"^# PRICING_DEFAULT='(.+)'$", env_example, flags=re.M)
    assert len(plan_from_setting(json.loads(value))) >= 4
    page = (BASE / "docs/operations/configuration.md").read_text(encoding="utf-8")
    (value,) = re.findall(r"^export PRICING_DEFAULT='(.+)'$", page, flags=re.M)
    assert len(plan_from_setting(json.loads(value))) >= 4
