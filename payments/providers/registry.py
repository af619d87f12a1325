"""(mode, rail) → adapter, chosen by settings.PAYMENT_PROVIDERS, never by if/else in services."""

from functools import cache

from django.conf import settings
from django.utils.module_loading import import_string

from payments.errors import ProviderUnavailable
from payments.models import Network
from payments.providers.base import CardProvider, MobileMoneyProvider

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


def mobile_money(*, livemode: bool, network: str) -> MobileMoneyProvider:
    label = Network(network).label if network in Network.values else network
    return _get(livemode, network, label)


def card(*, livemode: bool) -> CardProvider:
    return _get(livemode, CARD, "Card payment")


def card_available(*, livemode: bool) -> bool:
    try:
        card(livemode=livemode)
    except ProviderUnavailable:
        return False
    return True
