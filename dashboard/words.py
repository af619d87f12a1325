"""Settlement accounts, schedules and moments said in words, in the active language: the
settlement pages, the owners' and admins' mail and the audit log's details say them alike."""

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.dates import WEEKDAYS
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from core.money import format_amount
from payments.models import Network, SettlementAccountType, SettlementInterval

# The webhook events, as the payment's timeline names them (their type is the API's name).
EVENT_WORDS = {
    "charge.succeeded": gettext_lazy("payment succeeded"),
    "charge.failed": gettext_lazy("payment failed"),
    "charge.declined": gettext_lazy("payment declined"),
    "refund.succeeded": gettext_lazy("refund succeeded"),
    "refund.failed": gettext_lazy("refund failed"),
    "checkout.session.completed": gettext_lazy("checkout page paid"),
    "checkout.session.expired": gettext_lazy("checkout page expired"),
    "payout.succeeded": gettext_lazy("payout succeeded"),
    "payout.failed": gettext_lazy("payout failed"),
    "payout_batch.completed": gettext_lazy("payout batch completed"),
    "settlement.paid": gettext_lazy("settlement paid"),
    "settlement.failed": gettext_lazy("settlement failed"),
}

ZONE_NAMES = {
    "Africa/Kinshasa": gettext_lazy("Kinshasa time"),
    "Africa/Lubumbashi": gettext_lazy("Lubumbashi time"),
}


def local_moment(moment: datetime, zone: str) -> str:
    """`3 December 2026 10:00 (Kinshasa time)`: a moment in the merchant's time zone, named."""
    local = timezone.localtime(moment, ZoneInfo(zone))
    return f"{date_format(local, 'DATETIME_FORMAT')} ({ZONE_NAMES.get(zone, zone)})"


def account_words(*, type: str, currency: str, last4: str, bank_name: str = "", network: str = ""):
    """`Bank account at Rawbank ending in 4821 (CDF)`, `Vodacom M-Pesa wallet ending in 5678
    (CDF)`: an account as its owners recognise it, never its whole number."""
    if type == SettlementAccountType.BANK_ACCOUNT:
        return _("Bank account at %(bank)s ending in %(last4)s (%(currency)s)") % {
            "bank": bank_name,
            "last4": last4,
            "currency": currency,
        }
    return _("%(network)s wallet ending in %(last4)s (%(currency)s)") % {
        "network": Network(network).label if network in Network.values else network,
        "last4": last4,
        "currency": currency,
    }


def account_name(account) -> str:
    """account_words of a SettlementAccount."""
    return account_words(
        type=account.type,
        currency=account.currency,
        last4=account.last4,
        bank_name=account.bank_name,
        network=account.network,
    )


def account_details(account, *, time_zone: str) -> dict:
    """What the audit log keeps of an account added or removed (said by account_change_words):
    how it is recognised, and until when a new one is held."""
    details = {
        "type": account.type,
        "currency": account.currency,
        "bank_name": account.bank_name,
        "network": account.network,
        "last4": account.last4,
    }
    if account.available_from > account.created_at:
        details["available_from"] = account.available_from.isoformat()
        details["time_zone"] = time_zone
    return details


def account_change_words(details: dict) -> str:
    said = account_words(
        type=details["type"],
        currency=details["currency"],
        last4=details["last4"],
        bank_name=details.get("bank_name", ""),
        network=details.get("network", ""),
    )
    held = details.get("available_from")
    if not held:
        return said
    return _("%(account)s, on hold until %(when)s") % {
        "account": said,
        "when": local_moment(parse_datetime(held), details.get("time_zone", "Africa/Kinshasa")),
    }


def schedule_words(*, interval: str, weekday: int, minimum: int, currency: str) -> str:
    """`Every Monday, from 50,000.00 CDF`, `On demand`."""
    if interval == SettlementInterval.MANUAL:
        return _("On demand only")
    when = (
        _("Every day")
        if interval == SettlementInterval.DAILY
        else _("Every %(weekday)s") % {"weekday": WEEKDAYS[weekday]}
    )
    if not minimum:
        return when
    return _("%(when)s, from %(minimum)s") % {
        "when": when,
        "minimum": format_amount(minimum, currency),
    }


def schedule_change_words(details: dict) -> str:
    """`CDF: On demand only → Every Monday, from 50,000.00 CDF`."""
    currency = details["currency"]
    return _("%(currency)s: %(before)s → %(after)s") % {
        "currency": currency,
        "before": schedule_words(currency=currency, **details["before"]),
        "after": schedule_words(currency=currency, **details["after"]),
    }


# A delivery attempt's error, as webhooks.transport stores it (in English, for logs and staff),
# said in the page's language: what happened to the merchant's server, in words.
_NO_ANSWER = "No answer: the connection failed or timed out."
_DELIVERY_ERRORS = [
    (re.compile(r"Connection failed: cannot resolve (?P<host>\S+?)(?::.*)?\.?$"), "unresolved"),
    (re.compile(r"Refused destination: live webhook URLs must use https\.?$"), "https"),
    (re.compile(r"Refused destination: (?P<host>\S+) resolves to (?P<address>\S+?),"), "private"),
    (re.compile(r"HTTP (?P<code>\d{3})"), "http"),
]


def delivery_error(error: str) -> str:
    """`No answer: …`, `Connection failed: cannot resolve shop.example: …`, `HTTP 500.` → the
    same in the active language; an error of another shape is kept as it is."""
    if error == _NO_ANSWER:
        return _("No answer: the connection failed or timed out.")
    for pattern, kind in _DELIVERY_ERRORS:
        found = pattern.match(error)
        if found is None:
            continue
        if kind == "unresolved":
            return _("Connection failed: the name %(host)s is not found.") % found.groupdict()
        if kind == "https":
            return _("Not sent: a live webhook URL must begin with https.")
        if kind == "private":
            return (
                _("Not sent: %(host)s leads to %(address)s, an address of a private network.")
                % found.groupdict()
            )
        return _("Your server answered HTTP %(code)s.") % found.groupdict()
    return error
