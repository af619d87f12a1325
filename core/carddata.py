"""Card data must never reach the service.

Refuses fields named like card data and any string holding a Luhn-valid 13–19 digit sequence.
Digits count as one sequence across any separators that are not letters or digits (spaces of any
kind, dots, dashes, slashes, underscores, tabs, zero-width characters): a run of digit groups is
refused when any window of consecutive whole groups holding 13–19 digits is Luhn-valid, so a
number followed by an expiry or a CVV is caught too. One unbroken group of 20 or more digits (a
long order reference) is not card data and cannot be part of a 13–19 digit window.
"""

import re
import unicodedata
from collections.abc import Iterator

# Names compared after lower-casing and dropping everything but letters and digits.
CARD_FIELD_NAMES = frozenset(
    {
        "number",
        "card",
        "cardnumber",
        "cardnum",
        "cardno",
        "ccnumber",
        "ccnum",
        "cc",
        "creditcard",
        "creditcardnumber",
        "debitcard",
        "debitcardnumber",
        "pan",
        "primaryaccountnumber",
        "cvc",
        "cvc2",
        "cvv",
        "cvv2",
        "cvn",
        "ccv",
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
# Inside free-form objects (metadata) keys called "number", "card" or "cc" (an e-mail copy) are
# ordinary; the rest are not. A card number in their values is still caught by the value check.
NESTED_CARD_FIELD_NAMES = CARD_FIELD_NAMES - {"number", "card", "cc"}

# A run: digit groups separated by anything but letters and digits (spaces of any kind,
# punctuation, "_", zero-width characters). A letter ends a run. \d is any decimal digit.
_RUN = re.compile(r"\d+(?:[\W_]+\d+)*")
_GROUP = re.compile(r"\d+")
_MIN_DIGITS = 13
_MAX_DIGITS = 19
_DOUBLED = {str(d): d * 2 - 9 if d > 4 else d * 2 for d in range(10)}


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


def _ascii_digits(group: str) -> str:
    if group.isascii():
        return group
    return "".join(str(unicodedata.decimal(ch)) for ch in group)


def _has_luhn_window(groups: list[str]) -> bool:
    """Whether a Luhn-valid window of consecutive whole groups (each <= 19 digits) holds 13–19 digits.

    Linear in the number of groups: the Luhn sum of a window is a difference of two prefix sums
    (one per parity of the window's last digit), and the prefix sums of the admissible window
    starts (13–19 digits before the window's end) are kept as counts of their values mod 10.
    """
    # bounds[i]: digits before group i. pre0[i] / pre1[i]: Luhn contribution of those digits when
    # position m is doubled iff m is odd / even (the window's last digit at an even / odd position).
    bounds = [0]
    pre0 = [0]
    pre1 = [0]
    sums: dict[str, tuple[int, int]] = {}  # per call only: no card digits outlive the check
    start = 0
    for group in groups:
        # (Luhn sum with the digits at even indexes doubled, with those at odd indexes doubled)
        pair = sums.get(group)
        if pair is None:
            even, odd = group[0::2], group[1::2]
            pair = (
                sum(_DOUBLED[c] for c in even) + sum(map(int, odd)),
                sum(map(int, even)) + sum(_DOUBLED[c] for c in odd),
            )
            sums[group] = pair
        if start % 2:
            pre0.append(pre0[-1] + pair[0])
            pre1.append(pre1[-1] + pair[1])
        else:
            pre0.append(pre0[-1] + pair[1])
            pre1.append(pre1[-1] + pair[0])
        start += len(group)
        bounds.append(start)

    count0 = [0] * 10
    count1 = [0] * 10
    lo = hi = 0  # window starts a in [lo, hi) are counted: 13 <= bounds[b] - bounds[a] <= 19
    for b in range(1, len(bounds)):
        end = bounds[b]
        while hi < b and end - bounds[hi] >= _MIN_DIGITS:
            count0[pre0[hi] % 10] += 1
            count1[pre1[hi] % 10] += 1
            hi += 1
        while lo < hi and end - bounds[lo] > _MAX_DIGITS:
            count0[pre0[lo] % 10] -= 1
            count1[pre1[lo] % 10] -= 1
            lo += 1
        if end % 2:  # last digit at an even position
            if count0[pre0[b] % 10]:
                return True
        elif count1[pre1[b] % 10]:
            return True
    return False


def contains_card_number(text: str) -> bool:
    for run in _RUN.finditer(text):
        groups: list[str] = []
        digits = 0
        for group in _GROUP.findall(run.group()):
            if len(group) > _MAX_DIGITS:
                # An unbroken 20+ digit reference: not card data, and no window can cross it.
                if digits >= _MIN_DIGITS and _has_luhn_window(groups):
                    return True
                groups, digits = [], 0
                continue
            groups.append(_ascii_digits(group))
            digits += len(group)
        if digits >= _MIN_DIGITS and _has_luhn_window(groups):
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
