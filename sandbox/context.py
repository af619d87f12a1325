"""The test numbers a test-mode checkout or payment link page shows (sandbox.providers' table),
said in the page's language: a context processor (config/settings/apps.py)."""

from payments.failures import failure_words
from sandbox.providers import test_numbers


def _lowered(code: str) -> str:
    """The failure's sentence inside another ("declines it: the customer's balance…")."""
    said = failure_words(code) if code else ""
    return said[:1].lower() + said[1:]


def sandbox_numbers(request) -> dict:
    return {
        "sandbox_numbers": [
            {"number": number, "approves": status == "succeeded", "words": _lowered(code)}
            for number, status, code in test_numbers()
        ]
    }
