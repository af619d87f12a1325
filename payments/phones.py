"""DRC mobile numbers: strict E.164 (+243 and 9 digits starting with 8 or 9) and the operator
prefix table (the DRC has no number portability). The one place that knows the prefixes."""

import re
from dataclasses import dataclass

from payments.models import Network
from payments.providers.base import national_number

E164_DRC_MOBILE = re.compile(r"\+243[89][0-9]{8}")
PHONE_INVALID = "phone_invalid"
PHONE_NETWORK_MISMATCH = "phone_network_mismatch"

PREFIX_NETWORK: dict[str, str] = {
    "81": Network.VODACOM_MPESA,
    "82": Network.VODACOM_MPESA,
    "83": Network.VODACOM_MPESA,
    "86": Network.VODACOM_MPESA,
    "97": Network.AIRTEL_MONEY,
    "98": Network.AIRTEL_MONEY,
    "99": Network.AIRTEL_MONEY,
    "80": Network.ORANGE_MONEY,
    "84": Network.ORANGE_MONEY,
    "85": Network.ORANGE_MONEY,
    "89": Network.ORANGE_MONEY,
}


def is_valid_drc_mobile(phone: str) -> bool:
    return isinstance(phone, str) and E164_DRC_MOBILE.fullmatch(phone) is not None


def network_for(phone: str) -> str | None:
    """The operator a prefix belongs to, or None for a prefix the table does not know."""
    return PREFIX_NETWORK.get(national_number(phone)[:2])


def phone_problem(phone: str, network: str | None = None) -> str | None:
    """What keeps a number from being charged on `network` (None: whichever operator owns it):
    PHONE_INVALID when it is not a DRC mobile number in E.164, PHONE_NETWORK_MISMATCH when its
    prefix belongs to another operator, None when it will do. A prefix the table does not know
    is no mismatch. The one phone check of the API and of the hosted page."""
    if not is_valid_drc_mobile(phone):
        return PHONE_INVALID
    owner = network_for(phone)
    if network and owner and owner != network:
        return PHONE_NETWORK_MISMATCH
    return None


# What a customer may type around the digits: spaces (also non-breaking), dots, dashes, slashes,
# brackets, and one leading "+". Anything else (letters…) is no phone number.
TYPED = re.compile(r"\+?[0-9 \u00a0.()/-]{1,30}")


def normalise(raw: str) -> str | None:
    """What a customer types (0812 345 678, +243 81 234 5678, 243812345678, 00243…, 812345678,
    also +243 0812… with the trunk 0 kept) as E.164 +243 and 9 digits, or None when it cannot
    be one. Whether it is a DRC mobile number is for is_valid_drc_mobile to say."""
    if not isinstance(raw, str) or TYPED.fullmatch(raw.strip()) is None:
        return None
    digits = re.sub(r"[^0-9]", "", raw)
    if raw.strip().startswith("+"):
        digits = "+" + digits
    for prefix in ("+243", "00243", "243", "0", ""):
        if digits.startswith(prefix):
            national = digits[len(prefix) :]
            if prefix not in ("0", "") and len(national) == 10 and national.startswith("0"):
                national = national[1:]  # +243 0812…: the trunk 0 kept after the country code
            if len(national) == 9 and (prefix != "" or len(digits) == 9):
                return "+243" + national
    return None


@dataclass(frozen=True)
class Prediction:
    phone: str  # E.164
    network: str | None  # None: a DRC mobile number whose prefix the table does not know


def predict(raw: str) -> Prediction | None:
    """The number a customer typed, in E.164, and the operator it belongs to; None when it is no
    DRC mobile number. The one reading of typed numbers: GET /v1/networks/predict and the
    hosted page's phone field both use it."""
    phone = normalise(raw)
    if phone is None or not is_valid_drc_mobile(phone):
        return None
    return Prediction(phone=phone, network=network_for(phone))
