"""Card data must never reach the service (interface rule 4, contract §4).

Refuses fields named like card data and any string holding a Luhn-valid 13–19 digit sequence
(spaces and dashes allowed between digits).
"""

import re
from collections.abc import Iterator

# Names compared after lower-casing and dropping everything but letters and digits.
CARD_FIELD_NAMES = frozenset(
    {
        "number",
        "card",
        "cardnumber",
        "cardno",
        "pan",
        "primaryaccountnumber",
        "cvc",
        "cvc2",
        "cvv",
        "cvv2",
        "cid",
        "securitycode",
        "cardsecuritycode",
        "expmonth",
        "expyear",
        "expiry",
        "expirydate",
        "expdate",
        "expiration",
        "expirationdate",
        "expirationmonth",
        "expirationyear",
        "cardexpiry",
        "cardcvc",
        "cardcvv",
        "track1",
        "track2",
    }
)
# Inside free-form objects (metadata) a key called "number" is ordinary; the rest are not.
NESTED_CARD_FIELD_NAMES = CARD_FIELD_NAMES - {"number", "card"}

_DIGIT_RUN = re.compile(r"(?<![\d])\d(?:[ -]?\d){12,18}(?![ -]?\d)")


def _normalise(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2 == 1:
            d *= 2
            if d > 9:
                d -= 9
        total += d
    return total % 10 == 0


def contains_card_number(text: str) -> bool:
    for match in _DIGIT_RUN.finditer(text):
        digits = re.sub(r"[ -]", "", match.group())
        if 13 <= len(digits) <= 19 and luhn_valid(digits):
            return True
    return False


def _walk(value, path: str, top_level: bool) -> Iterator[tuple[str, str]]:
    """Yield (param, reason) for every piece of card data in a parsed JSON value."""
    if isinstance(value, dict):
        for key, sub in value.items():
            key_str = str(key)
            names = CARD_FIELD_NAMES if top_level else NESTED_CARD_FIELD_NAMES
            param = f"{path}[{key_str}]" if path else key_str
            if _normalise(key_str) in names:
                yield param, "name"
            yield from _walk(sub, param, top_level=False)
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from _walk(sub, f"{path}[{i}]", top_level=False)
    elif isinstance(value, str) and contains_card_number(value):
        yield path, "value"


def find_card_data(body: dict) -> str | None:
    """The param holding card data, or None."""
    for param, _reason in _walk(body, "", top_level=True):
        return param
    return None
