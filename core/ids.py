"""Public identifiers: a prefix and 24 random characters from [A-Za-z0-9], never sequential."""

import re
import secrets
import string

ALPHABET = string.ascii_letters + string.digits

# Random bytes become characters by their value modulo 62; the values from 248 = 4 × 62 up are
# dropped, so that every character is equally likely.
_KEPT = 256 - 256 % len(ALPHABET)
_CHARACTERS = bytes(ord(ALPHABET[value % len(ALPHABET)]) for value in range(256))
_DROPPED = bytes(range(_KEPT, 256))


def random_token(length: int) -> str:
    """`length` characters of ALPHABET, each drawn uniformly by the OS's random source."""
    token = b""
    while len(token) < length:
        token += secrets.token_bytes(length + 8).translate(_CHARACTERS, _DROPPED)
    return token[:length].decode()


_SHAPE = re.compile(r"[a-z]{2,5}_[A-Za-z0-9]{24}")


def looks_like_id(text: str) -> bool:
    """Whether `text` has the shape of one of our ids (a prefix, `_`, 24 letters and digits)."""
    return _SHAPE.fullmatch(text) is not None


def new_id(prefix: str) -> str:
    return f"{prefix}_{random_token(24)}"


# Named callables so that model field defaults can be serialised into migrations.
def merchant_id() -> str:
    return new_id("mer")


def charge_id() -> str:
    return new_id("ch")


def refund_id() -> str:
    return new_id("re")


def session_id() -> str:
    return new_id("cs")


def event_id() -> str:
    return new_id("evt")


def payout_id() -> str:
    return new_id("po")


def settlement_id() -> str:
    return new_id("stl")


def settlement_account_id() -> str:
    return new_id("sa")


def balance_transaction_id() -> str:
    return new_id("txn")


def sandbox_id() -> str:
    return new_id("sbx")


def request_id() -> str:
    return new_id("req")


def payment_link_id() -> str:
    return new_id("plink")


def payment_link_slug() -> str:
    """The random part of a payment link's public address (/pay/{slug}): 22 characters drawn by
    the OS's random source (about 131 bits), not the link's id."""
    return random_token(22)


def payout_batch_id() -> str:
    return new_id("pob")


def message_id() -> str:
    return new_id("sms")


def receipt_token() -> str:
    """The random part of an SMS receipt's page (/r/{token}): 22 characters drawn by the OS's
    random source (about 131 bits), unrelated to any id."""
    return random_token(22)
