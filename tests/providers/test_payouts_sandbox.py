"""The sandbox operator's payouts (by the last three digits of the phone, answered once
SANDBOX_MOBILE_MONEY_DELAY has passed) and which adapter pays out in each mode."""

from datetime import timedelta

import pytest
from django.utils import timezone

from core import ids
from core.errors import ProviderUnavailable
from payments.providers import registry
from payments.providers.base import PayoutQuery, PayoutRequest
from sandbox.providers import SandboxMobileMoney


def payout(phone: str = "+243812345678") -> PayoutRequest:
    return PayoutRequest(
        reference=ids.payout_id(),
        amount=10000,
        currency="CDF",
        phone=phone,
        network="VODACOM_MPESA",
    )


def status(request: PayoutRequest, sent_seconds_ago: float):
    return SandboxMobileMoney().payout_status(
        PayoutQuery(
            reference=request.reference,
            amount=request.amount,
            currency=request.currency,
            phone=request.phone,
            network=request.network,
            requested_at=timezone.now() - timedelta(seconds=sent_seconds_ago),
        )
    )


def test_a_payout_is_pending_until_the_delay_has_passed(settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3
    request = payout()
    sent = SandboxMobileMoney().send_payout(request)
    assert (sent.status, sent.check_after) == ("pending", 3)
    assert sent.provider_reference.startswith("sbx_")

    early = status(request, sent_seconds_ago=1)
    assert early.status == "pending" and 1.5 < early.check_after <= 2
    done = status(request, sent_seconds_ago=3)
    assert (done.status, done.provider_reference) == ("succeeded", sent.provider_reference)


@pytest.mark.parametrize(
    "phone,outcome,failure_code",
    [
        ("+243812345001", "failed", "recipient_invalid"),
        ("+243972345004", "failed", "provider_error"),
        ("+243852345002", "succeeded", ""),  # declines of charges are no payout outcomes
        ("+243812345003", "succeeded", ""),
        ("+243812345678", "succeeded", ""),
    ],
)
def test_the_outcome_follows_the_last_three_digits(settings, phone, outcome, failure_code):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    result = status(payout(phone), sent_seconds_ago=0)
    assert (result.status, result.failure_code) == (outcome, failure_code)
    assert bool(result.failure_message) == (outcome == "failed")


def test_whole_units_only():
    request = PayoutRequest(
        reference=ids.payout_id(), amount=1050, currency="USD", phone="+243812345678", network="X"
    )
    outcome = SandboxMobileMoney().send_payout(request)
    assert (outcome.status, outcome.failure_code) == ("failed", "amount_invalid")


@pytest.mark.parametrize("network", ["AIRTEL_MONEY", "VODACOM_MPESA", "ORANGE_MONEY"])
def test_test_mode_pays_out_through_the_sandbox_on_every_network(network):
    assert isinstance(registry.payouts(livemode=False, network=network), SandboxMobileMoney)
    assert registry.payouts_available(livemode=False, network=network)


def test_live_payouts_on_a_network_without_a_live_adapter_are_unavailable(settings):
    settings.PAYMENT_PROVIDERS = {**settings.PAYMENT_PROVIDERS, "live": {}}
    assert not registry.payouts_available(livemode=True, network="ORANGE_MONEY")
    with pytest.raises(ProviderUnavailable) as raised:
        registry.payouts(livemode=True, network="ORANGE_MONEY")
    assert raised.value.status == 503 and raised.value.code == "provider_unavailable"
