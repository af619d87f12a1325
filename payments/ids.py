"""Public identifiers: a prefix and 24 random characters from [A-Za-z0-9], never sequential."""

import secrets
import string

ALPHABET = string.ascii_letters + string.digits


def random_token(length: int) -> str:
    return "".join(secrets.choice(ALPHABET) for _ in range(length))


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


def balance_transaction_id() -> str:
    return new_id("txn")


def sandbox_id() -> str:
    return new_id("sbx")


def request_id() -> str:
    return new_id("req")
