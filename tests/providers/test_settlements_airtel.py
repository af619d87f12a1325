"""A live settlement to the merchant's own Airtel Money wallet goes through the payout rail
(Airtel's disbursement, over real HTTP to a local Airtel Open API), at most once: a send task
delivered again (its worker killed before acknowledging it, or a sweep racing it) finds the call
taken and calls nobody. The enquiry then settles it; the books agree."""

import json

import pytest

from payments.models import Settlement
from payments.services import settlements
from payments.services.ledger import ledger_check
from tests.factories import succeeded_live_charge
from tests.helpers import race, wait_for
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


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_while_paying_a_wallet_settlement_pays_it_once(
    airtel_payouts, live_merchant, settings, celery_worker_process
):
    """The worker hands the settlement to Airtel and is killed (SIGKILL) before Airtel answers;
    a new worker with beat does not send it again: its status enquiry settles it, paid once."""
    env = {
        "AIRTEL_BASE_URL": airtel_payouts.url,
        "AIRTEL_CLIENT_ID": airtel_payouts.client_id,
        "AIRTEL_CLIENT_SECRET": airtel_payouts.client_secret,
        "AIRTEL_CALLBACK_HASH_KEY": airtel_payouts.callback_hash_key,
        "AIRTEL_DISBURSEMENT_PIN": airtel_payouts.disbursement_pin,
        "AIRTEL_DISBURSEMENT_PUBLIC_KEY": airtel_payouts.disbursement_public_key,
        "PROVIDER_HTTP_TIMEOUT": "20",
        "PRICING_DEFAULT": json.dumps(settings.PRICING_DEFAULT),
    }
    airtel_payouts.disbursement_hold = True  # Airtel pays, and answers only once released
    first = celery_worker_process(name="first", **env)
    succeeded_live_charge(live_merchant, amount=303000)
    settlements.account_add(merchant=live_merchant, livemode=True, **WALLET)
    made = settlements.settlement_create(merchant=live_merchant, livemode=True, currency="CDF")
    wait_for(lambda: calls(airtel_payouts, DISBURSE) == 1, timeout=60)
    first.kill()  # SIGKILL while it waits for Airtel's answer
    first.wait(timeout=10)
    airtel_payouts.disbursement_hold = False
    airtel_payouts.released.set()

    celery_worker_process(name="second", beat=True, **env)
    wait_for(lambda: Settlement.objects.get(pk=made.id).status == "paid", timeout=180, interval=1)
    assert calls(airtel_payouts, DISBURSE) == 1
    assert ledger_check() == []
