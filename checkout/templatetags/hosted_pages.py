"""Display helpers of the hosted pages: an operator's name from its network code, and the
`tel:` address of a phone number as merchants write it."""

import re

from django import template

from payments.models import Network

register = template.Library()
NETWORK_NAMES = dict(Network.choices)  # the display names the networks' adapters declare


@register.filter
def operator_name(network: str) -> str:
    """`AIRTEL_MONEY` → `Airtel Money`; an unknown code is shown as it is."""
    return NETWORK_NAMES.get(network, network)


@register.filter
def tel_href(phone: str) -> str:
    """`+243 81 234 5678` → `+243812345678`: what a `tel:` link dials."""
    return re.sub(r"[^\d+]", "", phone or "")
