"""Succeeded charges for refund tests, made through the real services and the sandbox."""

from django.test import override_settings

from payments.providers.base import ProviderOutcome
from payments.services import charges

PHONE = "+243812345678"


def succeeded_mobile_money_charge(merchant, *, amount=10000, currency="CDF", **extra):
    """A mobile money charge paid through the sandbox operator (prompt sent, status checked)."""
    charge = charges.charge_create(
        merchant=merchant,
        livemode=False,
        amount=amount,
        currency=currency,
        phone=PHONE,
        network="VODACOM_MPESA",
        **extra,
    )
    with override_settings(SANDBOX_MOBILE_MONEY_DELAY=0):
        charges.charge_request_payment(charge_id=charge.id)
        charge = charges.charge_refresh(charge_id=charge.id)
    assert charge.status == "succeeded"
    return charge


def succeeded_card_charge(merchant, *, amount=1999, **extra):
    """A card charge whose provider status check answered ACCEPT."""
    charge = charges.charge_create(
        merchant=merchant,
        livemode=False,
        amount=amount,
        currency="USD",
        payment_method="card",
        **extra,
    )
    charge = charges.charge_apply_outcome(
        charge_id=charge.id,
        outcome=ProviderOutcome(status="succeeded", provider_reference="6421589017086000001"),
    )
    assert charge.status == "succeeded"
    return charge
