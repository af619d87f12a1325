"""DRC mobile numbers: strict E.164 (+243 and 9 digits starting with 8 or 9) and the operator
prefix table (the DRC has no number portability). The one place that knows the prefixes."""

import re

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


def normalise(raw: str) -> str:
    """Turn what a customer types (0812 345 678, 243812345678, +243 81…) into E.164 if possible."""
    digits = re.sub(r"[^\d+]", "", raw or "")
    if digits.startswith("+"):
        return digits
    if digits.startswith("00243"):
        return "+" + digits[2:]
    if digits.startswith("243") and len(digits) == 12:
        return "+" + digits
    if digits.startswith("0") and len(digits) == 10:
        return "+243" + digits[1:]
    if len(digits) == 9:
        return "+243" + digits
    return raw
