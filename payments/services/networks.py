"""Networks: the amounts each one takes, staff closing and reopening them, and the one check
every new charge and payout passes before anything is sent to a network (network_check_payable;
a new charge asks its second half, whether staff closed the network, in its own insert).

A closed network is refused (503 network_unavailable) until staff reopen it; what was already
sent to it goes on as usual. Reading the networks' state (operational, degraded, closed) is
selectors.network_overview.
"""

import logging

from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core.errors import InvalidRequest, NetworkUnavailable
from core.money import format_amount
from payments import selectors
from payments.models import Network, NetworkState

logger = logging.getLogger("payments.services")


def network_takes(*, network: str, currency: str, amount: int) -> bool:
    low, high = selectors.network_limits(network=network, currency=currency)
    return low <= amount <= high


def limits_message(*, network: str, currency: str) -> str:
    """What the network takes, in the words of the active language, amounts both as people read
    them and in minor units (what the API's `amount` is)."""
    low, high = selectors.network_limits(network=network, currency=currency)
    language = translation.get_language() or "en"
    return _(
        "%(network)s takes %(min_display)s to %(max_display)s: amount must be between "
        "%(min)s and %(max)s."
    ) % {
        "network": Network(network).label,
        "min_display": format_amount(low, currency, language),
        "max_display": format_amount(high, currency, language),
        "min": low,
        "max": high,
    }


def network_unavailable(network: str) -> NetworkUnavailable:
    return NetworkUnavailable(
        _(
            "%(network)s is unavailable at the moment: nothing new is sent to it. Please retry "
            "later or use another network."
        )
        % {"network": Network(network).label},
        param="network",
    )


def network_check_payable(*, network: str, livemode: bool, amount: int, currency: str) -> None:
    """Whether a new charge or payout of `amount` may go to `network` in this mode: 400
    amount_invalid outside the network's limits (a request that can never pass), then 503
    network_unavailable while staff keep the network closed (one that may pass later)."""
    network_check_limits(network=network, amount=amount, currency=currency)
    if selectors.network_is_closed(network=network, livemode=livemode):
        raise network_unavailable(network)


def network_check_limits(*, network: str, amount: int, currency: str) -> None:
    """The first half of network_check_payable: 400 amount_invalid outside the network's limits."""
    if not network_takes(network=network, currency=currency, amount=amount):
        raise InvalidRequest(
            limits_message(network=network, currency=currency),
            code="amount_invalid",
            param="amount",
        )


def network_states_ensure() -> None:
    """One state row per network and mode (open), so that staff find every network listed."""
    NetworkState.objects.bulk_create(
        [
            NetworkState(network=network, livemode=livemode)
            for network in Network.values
            for livemode in (False, True)
        ],
        ignore_conflicts=True,
    )


@transaction.atomic
def network_set_closed(
    *, network: str, livemode: bool, closed: bool, reason: str = "", by: str = ""
) -> NetworkState:
    """Staff close (with the reason, for staff) or reopen a network in one mode."""
    state, _created = NetworkState.objects.select_for_update().get_or_create(
        network=network, livemode=livemode
    )
    state.closed = closed
    state.reason = reason if closed else ""
    state.updated_at = timezone.now()
    state.updated_by = by
    state.save()
    logger.warning(
        "network %s %s in %s mode by %s%s",
        network,
        "closed" if closed else "reopened",
        "live" if livemode else "test",
        by or "?",
        f": {reason}" if closed and reason else "",
    )
    return state
