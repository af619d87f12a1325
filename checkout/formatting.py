"""Amounts as the customer reads them: `2 500,00 CDF` in French, `2,500.00 CDF` in English."""

SEPARATORS = {"fr": (" ", ","), "en": (",", ".")}


def format_amount(amount: int, currency: str, language: str) -> str:
    """Minor units (2 decimals for CDF and USD) to a display string. The French thousands
    separator is a plain space; the template keeps the amount on one line."""
    thousands, decimal = SEPARATORS.get((language or "fr")[:2], SEPARATORS["fr"])
    units, cents = divmod(abs(amount), 100)
    grouped = f"{units:,}".replace(",", thousands)
    sign = "-" if amount < 0 else ""
    return f"{sign}{grouped}{decimal}{cents:02d} {currency}"
