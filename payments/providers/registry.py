"""(mode, rail) → adapter, chosen by settings.PAYMENT_PROVIDERS, never by if/else in services."""

from functools import cache

from django.conf import settings
from django.utils.module_loading import import_string

from payments.errors import ProviderUnavailable
from payments.models import Network
from payments.providers.base import CardProvider, MobileMoneyProvider, payouts_unavailable

CARD = "card"


def _mode(livemode: bool) -> str:
    return "live" if livemode else "test"


@cache
def _load(path: str):
    return import_string(path)()


def _get(livemode: bool, rail: str, label: str):
    path = settings.PAYMENT_PROVIDERS.get(_mode(livemode), {}).get(rail)
    if not path:
        raise ProviderUnavailable(
            f"{label} is not available in {_mode(livemode)} mode yet: no provider is connected "
            "for it. Please retry later."
        )
    return _load(path)


def _label(network: str) -> str:
    return Network(network).label if network in Network.values else network


def mobile_money(*, livemode: bool, network: str) -> MobileMoneyProvider:
    return _get(livemode, network, _label(network))


def payouts(*, livemode: bool, network: str) -> MobileMoneyProvider:
    """The adapter that pays out on `network`; ProviderUnavailable (503) when the network, or its
    payout credentials, are not configured in this mode."""
    provider = mobile_money(livemode=livemode, network=network)
    if not provider.payouts_configured():
        raise payouts_unavailable(_label(network), _mode(livemode))
    return provider


def payouts_available(*, livemode: bool, network: str) -> bool:
    try:
        payouts(livemode=livemode, network=network)
    except ProviderUnavailable:
        return False
    return True


def card(*, livemode: bool) -> CardProvider:
    return _get(livemode, CARD, "Card payment")


def card_available(*, livemode: bool) -> bool:
    try:
        card(livemode=livemode)
    except ProviderUnavailable:
        return False
    return True
