"""(mode, rail) → adapter, chosen by settings.PAYMENT_PROVIDERS, never by if/else in services.

Each network's own adapter (settings.LIVE_PAYMENT_ADAPTERS, credentials set or not) also says what
the rest of the service needs to know of the network: whether its payment call blocks, whether its
operator calls us back and how that callback is read.
"""

from functools import cache

from django.conf import settings
from django.utils.module_loading import import_string
from django.utils.translation import gettext_noop

from core.errors import ProviderUnavailable
from payments.models import Network
from payments.providers.base import (
    CallingBack,
    CardProvider,
    MobileMoneyNetwork,
    MobileMoneyProvider,
    payouts_unavailable,
)

CARD = "card"


def _mode(livemode: bool) -> str:
    return "live" if livemode else "test"


@cache
def _load(path: str):
    return import_string(path)()


def _get(livemode: bool, rail: str, label):
    """The adapter of `rail` in this mode; `label()` names the rail when none is connected."""
    path = settings.PAYMENT_PROVIDERS.get(_mode(livemode), {}).get(rail)
    if not path:
        # Said in English where it is kept (logs, the charge's provider answers), in the
        # request's language by the API.
        raise ProviderUnavailable(
            gettext_noop(
                "%(what)s is not available in %(mode)s mode yet: no provider is connected for it. "
                "Please retry later."
            ),
            params={"what": label(), "mode": _mode(livemode)},
        )
    return _load(path)


def _label(network: str) -> str:
    return Network(network).label if network in Network.values else network


def mobile_money(*, livemode: bool, network: str) -> MobileMoneyProvider:
    return _get(livemode, network, lambda: _label(network))


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
    return _get(livemode, CARD, lambda: "Card payment")


def card_available(*, livemode: bool) -> bool:
    try:
        card(livemode=livemode)
    except ProviderUnavailable:
        return False
    return True


def _network_adapter(network: str) -> MobileMoneyNetwork | None:
    """The live adapter of a network, whether or not its credentials are set (None: unknown)."""
    path = settings.LIVE_PAYMENT_ADAPTERS.get(network) if network in Network.values else None
    return _load(path) if path else None


def blocking_networks() -> frozenset[str]:
    """The networks whose live payment call waits until the customer has answered on the phone."""
    return frozenset(
        network
        for network in Network.values
        if getattr(_network_adapter(network), "blocking", False)
    )


def callback_networks() -> list[str]:
    """The networks whose operator calls us back, as their callback URL names them (airtel_money)."""
    return [network.lower() for network in Network.values if callback_adapter(network.lower())]


def callback_adapter(name: str) -> CallingBack | None:
    """The adapter that reads the callbacks posted to /providers/<name>/callback (None: no
    operator calls back there)."""
    if name != name.lower():
        return None
    adapter = _network_adapter(name.upper())
    return adapter if hasattr(adapter, "parse_callback") else None
