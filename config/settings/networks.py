"""The mobile money networks: the amounts each takes, the amounts customers may type for a card
payment, and when a network is shown `degraded`."""

import re

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import env
from config.settings.providers import LIVE_PAYMENT_ADAPTERS

# The amounts each network takes, per currency, in WHOLE units (operators take whole francs and
# dollars): "CDF=100-5000000,USD=1-2500" applies to every network, "AIRTEL_MONEY:USD=1-1500"
# to one. NETWORK_LIMITS is read on top of the defaults, so it only needs what differs.
# Charges and payouts outside them answer 400 amount_invalid; GET /v1/networks shows them.
MOBILE_MONEY_NETWORKS = [rail for rail in LIVE_PAYMENT_ADAPTERS if rail != "card"]
NETWORK_LIMITS_DEFAULT = "CDF=100-5000000,USD=1-2500"
_LIMIT_CURRENCIES = ("CDF", "USD")
_LIMIT_MAX_UNITS = 999_999_999_999 // 100  # the API's largest amount, in whole units


def parse_network_limits(text: str, base: dict | None = None) -> dict[str, dict[str, tuple]]:
    """`"CDF=100-5000000,AIRTEL_MONEY:USD=1-1500"` → {network: {currency: (min, max)}} in minor
    units, on top of `base`. ImproperlyConfigured for anything it cannot read."""
    limits = {network: dict((base or {}).get(network, {})) for network in MOBILE_MONEY_NETWORKS}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        scope, _, bounds = entry.partition("=")
        network, _, currency = scope.strip().rpartition(":")
        low, _, high = bounds.strip().partition("-")
        if (
            (network and network not in MOBILE_MONEY_NETWORKS)
            or currency not in _LIMIT_CURRENCIES
            or not (low.isdigit() and high.isdigit())
            or not 1 <= int(low) <= int(high) <= _LIMIT_MAX_UNITS
        ):
            raise ImproperlyConfigured(
                f"NETWORK_LIMITS: cannot read {entry!r}. Expected CURRENCY=MIN-MAX or "
                f"NETWORK:CURRENCY=MIN-MAX in whole units, 1 <= MIN <= MAX <= {_LIMIT_MAX_UNITS}, "
                f"currency one of {', '.join(_LIMIT_CURRENCIES)}, network one of "
                f"{', '.join(MOBILE_MONEY_NETWORKS)}."
            )
        for name in [network] if network else MOBILE_MONEY_NETWORKS:
            limits[name][currency] = (int(low) * 100, int(high) * 100)
    return limits


NETWORK_LIMITS = parse_network_limits(
    env.str("NETWORK_LIMITS", default=""), parse_network_limits(NETWORK_LIMITS_DEFAULT)
)
# The smallest and largest amount a customer may type for a card payment on a custom-amount
# payment link, in USD minor units ("100-1000000": USD 1.00 to 10,000.00); links/forms.py.
_card_limits = env.str("CARD_CUSTOM_AMOUNT_LIMITS", default="100-1000000")
_card_match = re.fullmatch(r"\s*([0-9]+)\s*-\s*([0-9]+)\s*", _card_limits, re.ASCII)
if _card_match is None or not 1 <= int(_card_match[1]) <= int(_card_match[2]) <= 999_999_999_999:
    raise ImproperlyConfigured(
        f"CARD_CUSTOM_AMOUNT_LIMITS: cannot read {_card_limits!r}. Expected MIN-MAX in USD minor "
        "units, 1 ≤ MIN ≤ MAX ≤ 999999999999 (e.g. 100-1000000 for USD 1.00 to 10,000.00)."
    )
CARD_CUSTOM_AMOUNT_LIMITS = (int(_card_match[1]), int(_card_match[2]))
# A network is `degraded` while, over the last NETWORK_DEGRADED_WINDOW seconds, at least
# NETWORK_DEGRADED_MIN_ATTEMPTS of its mobile money charges were settled and the share of them
# that failed with an operator error or a timeout reached NETWORK_DEGRADED_THRESHOLD.
NETWORK_DEGRADED_WINDOW = env.int("NETWORK_DEGRADED_WINDOW", default=900)
NETWORK_DEGRADED_THRESHOLD = env.float("NETWORK_DEGRADED_THRESHOLD", default=0.5)
NETWORK_DEGRADED_MIN_ATTEMPTS = env.int("NETWORK_DEGRADED_MIN_ATTEMPTS", default=10)
if not 0 < NETWORK_DEGRADED_THRESHOLD <= 1 or NETWORK_DEGRADED_WINDOW < 1:
    raise ImproperlyConfigured(
        "NETWORK_DEGRADED_THRESHOLD must be a share above 0 and at most 1 (e.g. 0.5), and "
        "NETWORK_DEGRADED_WINDOW a number of seconds of at least 1."
    )
