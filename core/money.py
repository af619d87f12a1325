"""The one home of money arithmetic. Amounts are integers of minor units everywhere; CDF and USD
both have 2 minor units (ISO 4217). Mobile money operators take and pay whole units only (whole
francs or dollars), card payments may carry cents. Decimals appear only at the edges that need
them: the card form's `amount`, and the amounts people read."""

import re
from decimal import Decimal

from django.db import models
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _


class Currency(models.TextChoices):
    """The currencies amounts are counted in, each with MINOR_PER_UNIT minor units."""

    CDF = "CDF", _("Congolese franc")
    USD = "USD", _("US dollar")


MINOR_PER_UNIT = 100
SEPARATORS = {"fr": (" ", ","), "en": (",", ".")}
# What a customer may type as an amount on a public page (docs/guides/payment-links.md): ASCII
# digits, spaces (also the non-breaking ones) between groups of three, and at most one `,` or
# `.` before at most two decimals. No exponent, no sign, no digit of another script.
TYPED_SPACES = " \u00a0\u202f"
TYPED_AMOUNT = re.compile(
    rf"(?:[0-9]{{1,3}}(?:[{TYPED_SPACES}][0-9]{{3}})+|[0-9]+)(?:[.,][0-9]{{1,2}})?", re.ASCII
)


def is_whole(amount: int) -> bool:
    """Whether the amount is a whole number of francs or dollars (what operators take)."""
    return amount % MINOR_PER_UNIT == 0


def typed_amount(text: str) -> int | None:
    """What a customer typed, in francs or dollars (`2500`, `2 500`, `19,99`, `19.99`), in minor
    units; None when it is not written that way (`1e9`, `-5`, `+5`, `١٢`, `25 00`, `2,500`)."""
    text = text.strip()
    if TYPED_AMOUNT.fullmatch(text) is None:
        return None
    units, _, cents = re.sub(f"[{TYPED_SPACES}]", "", text).replace(",", ".").partition(".")
    return int(units) * MINOR_PER_UNIT + int(cents.ljust(2, "0"))


def whole_units(amount: int) -> int:
    """Minor units to the whole units operators' APIs take (the amount must be whole)."""
    return amount // MINOR_PER_UNIT


def major_units(amount: int) -> str:
    """`1250` → `"12.50"`, `-1250` → `"-12.50"`: the decimal in major units with two
    fractional digits."""
    units, cents = divmod(abs(amount), MINOR_PER_UNIT)
    return f"{'-' if amount < 0 else ''}{units}.{cents:02d}"


def format_amount(
    amount: int, currency: str, language: str | None = None, *, drop_zero_cents: bool = False
) -> str:
    """An amount as people read it: `2 500,00 CDF` in French, `2,500.00 CDF` in English, always
    with two decimals so that columns line up.

    Without a language (the staff's pages), in the active language's format, Django's own
    (`2\xa0500,00 CDF` in French: a non-breaking space between thousands). With one (the API's
    messages, the customer's pages), the French thousands separator is a plain space.

    With `drop_zero_cents` (the customer's pages) a whole amount is shown without decimals,
    `2 500 CDF` or `20 USD`, and one with cents keeps both digits, `19,99 USD`. The rule is the
    same for both currencies: mobile money is paid in whole francs or dollars, so the page then
    shows the amount the operator's prompt on the phone shows."""
    units, cents = divmod(abs(amount), MINOR_PER_UNIT)
    if language is None:
        decimals = 0 if drop_zero_cents and cents == 0 else 2
        number = Decimal(amount).scaleb(-2)
        text = number_format(number, decimals, use_l10n=True, force_grouping=True)
        return f"{text} {currency}"
    thousands, decimal = SEPARATORS.get((language or "fr")[:2], SEPARATORS["fr"])
    grouped = f"{units:,}".replace(",", thousands)
    sign = "-" if amount < 0 else ""
    fraction = "" if drop_zero_cents and cents == 0 else f"{decimal}{cents:02d}"
    return f"{sign}{grouped}{fraction} {currency}"


def format_customer_amount(amount: int, currency: str, language: str) -> str:
    """An amount on the customer's pages: whole amounts without decimals (`2 500 CDF`)."""
    return format_amount(amount, currency, language, drop_zero_cents=True)
