"""`{% if membership|can:"refund" %}`: show a button only to the roles that may use it."""

from django import template
from django.utils import timezone
from django.utils.formats import date_format

from core.money import format_amount
from dashboard import words
from dashboard.permissions import can as role_can
from payments.failures import failure_words

register = template.Library()


@register.filter
def can(membership, perm: str) -> bool:
    return role_can(membership, perm)


@register.simple_tag
def money(amount: int, currency: str) -> str:
    """`250000, "CDF"` → `2 500,00 CDF` in the page's language (core.money)."""
    return format_amount(amount, currency)


@register.simple_tag
def failure(code: str, message: str = "") -> str:
    """`{% failure charge.failure_code charge.failure_message %}`: why it failed, in the page's
    language (payments.failures)."""
    return failure_words(code, message)


@register.filter
def delivery_error(error: str) -> str:
    """A webhook delivery attempt's error in the page's language (dashboard.words)."""
    return words.delivery_error(error or "")


@register.simple_tag
def local_time(moment, merchant) -> str:
    """`{% local_time settlement.created_at membership.merchant %}`: the moment in the
    merchant's time zone, the zone named (dashboard.words)."""
    return words.local_moment(moment, merchant.time_zone) if moment else ""


@register.filter
def when(moment, length: str = "short") -> str:
    """`{{ charge.created_at|when }}` → `08/12/2026 14:05 WAT` (`|when:"long"`: `8 décembre 2026
    14:05 WAT`): the moment in the active time zone (the merchant's, which merchant_view
    activates), its zone named by its abbreviation (WAT in Kinshasa, CAT in Lubumbashi)."""
    if not moment:
        return ""
    local = timezone.localtime(moment)
    shown = date_format(local, "DATETIME_FORMAT" if length == "long" else "SHORT_DATETIME_FORMAT")
    return f"{shown} {local.tzname()}"
