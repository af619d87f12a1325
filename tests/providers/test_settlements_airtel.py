"""A live settlement to the merchant's own Airtel Money wallet goes through the payout rail
(Airtel's disbursement, over real HTTP to a local Airtel Open API), at most once: a send task
delivered again (its worker killed before acknowledging it, or a sweep racing it) finds the call
taken and calls nobody. The enquiry then settles it; the books agree."""

import pytest

from payments.models import Settlement
from payments.services import settlements
from payments.services.ledger import ledger_check
from tests.factories import succeeded_live_charge
from tests.helpers import race
from tests.pricing import rate
from tests.providers.test_payouts_airtel import DISBURSE, calls

WALLET = {
    "type": "mobile_money",
    "currency": "CDF",
    "phone": "+243971234567",
    "network": "AIRTEL_MONEY",
}


@pytest.fixture
def airtel_payouts(airtel, settings):
    settings.AIRTEL_DISBURSEMENT_PIN = airtel.disbursement_pin
    settings.AIRTEL_DISBURSEMENT_PUBLIC_KEY = airtel.disbursement_public_key
    settings.SETTLEMENT_ACCOUNT_HOLD = 0
    settings.PRICING_DEFAULT = [rate("settlement", "mobile_money", currency="CDF", bp=100)]
    yield airtel
    airtel.released.set()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_wallet_settlement_is_one_disbursement_however_often_it_is_sent(
    airtel_payouts, live_merchant
):
    succeeded_live_charge(live_merchant, amount=303000)
    settlements.account_add(merchant=live_merchant, livemode=True, **WALLET)
    made = settlements.settlement_create(merchant=live_merchant, livemode=True, currency="CDF")
    assert (made.amount, made.fee, made.status) == (300000, 3000, "pending")

    race(lambda: settlements.settlement_send(settlement_id=made.id), count=3)
    assert calls(airtel_payouts, DISBURSE) == 1
    sent = Settlement.objects.get(pk=made.id)
    assert sent.status in ("in_transit", "paid")
    assert sent.provider_requested_at is not None
    settled = settlements.settlement_refresh(settlement_id=made.id)
    assert settled.status == "paid", settled.provider_raw
    assert calls(airtel_payouts, DISBURSE) == 1
    assert ledger_check() == []
