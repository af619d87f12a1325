"""Price plans for the tests that state one (the suite is fee-free otherwise: tests/env.py)."""


def rate(
    kind: str = "charge",
    method: str | None = None,
    network: str | None = None,
    currency: str = "CDF",
    bp: int = 0,
    fixed: int = 0,
    days: int = 0,
) -> dict:
    """One rate in the shape of PRICING_DEFAULT and GET /v1/pricing."""
    return {
        "kind": kind,
        "payment_method": method,
        "network": network,
        "currency": currency,
        "rate_bp": bp,
        "fixed": fixed,
        "available_after_days": days,
    }
