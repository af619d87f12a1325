"""Fees in the books: a succeeded charge's row carries the fee of the rate kept when it was made,
a payout reserves its amount and fee and its failure gives both back, refunds keep the charge's
fee, late payments carry none; every row says its fee, net, fee_details and available_on; and
checkledger finds a row whose fee its rate does not give."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from payments import selectors
from payments.models import LedgerEntry, Payout, PriceRate
from payments.providers.base import ProviderOutcome
from payments.services import charges, payouts, refunds
from payments.services.ledger import ledger_check
from tests.factories import (
    make_charge,
    sandbox_paid,
    succeeded_card_charge,
    succeeded_mobile_money_charge,
    timed_out_charge,
)
from tests.helpers import assert_error
from tests.pricing import rate

pytestmark = pytest.mark.django_db

PLAN = [
    rate("charge", "mobile_money", bp=300),
    rate("charge", "card", currency="USD", bp=390, fixed=30),
    rate("payout", "mobile_money", bp=150),
]
PAYOUT = {"amount": 10000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


@pytest.fixture(autouse=True)
def plan(settings):
    settings.PRICING_DEFAULT = PLAN


def row_of(source_id: str, type_: str) -> dict:
    entry = LedgerEntry.objects.get(source=source_id, type=type_)
    return {"amount": entry.amount, "fee": entry.fee, "net": entry.amount - entry.fee}


def test_a_charge_keeps_the_rate_in_force_when_it_was_created(api, merchant):
    pending = make_charge(merchant, amount=25000)
    body = api.get(f"/v1/charges/{pending.id}").json()
    assert (body["fee"], body["net"]) == (None, None)  # not before it succeeded
    # Staff change the plan while the customer is still deciding: the charge keeps its rate.
    PriceRate.objects.create(
        merchant=merchant, kind="charge", payment_method="mobile_money", currency="CDF", rate_bp=500
    )
    paid = sandbox_paid(pending.id)
    body = api.get(f"/v1/charges/{paid.id}").json()
    assert (body["amount"], body["fee"], body["net"]) == (25000, 750, 24250)
    assert row_of(paid.id, "charge") == {"amount": 25000, "fee": 750, "net": 24250}
    later = succeeded_mobile_money_charge(merchant, amount=25000)
    assert row_of(later.id, "charge")["fee"] == 1250  # the new rate, for a new charge
    assert api.get("/v1/balance").json()["available"][0] == {
        "currency": "CDF",
        "amount": 24250 + 23750,
    }


def test_a_failed_charge_has_no_fee(api, merchant):
    failed = make_charge(merchant, status="failed")
    body = api.get(f"/v1/charges/{failed.id}").json()
    assert (body["fee"], body["net"]) == (None, None)
    assert not LedgerEntry.objects.filter(source=failed.id).exists()


def test_a_balance_transaction_says_its_fee_net_details_and_availability(api, merchant):
    with time_machine.travel(datetime(2026, 12, 1, 9, 0, tzinfo=UTC), tick=False):
        card = succeeded_card_charge(merchant, amount=1999)
    [row] = api.get("/v1/balance_transactions").json()["data"]
    assert row | {"id": None} == {
        "id": None,
        "object": "balance_transaction",
        "livemode": False,
        "type": "charge",
        "amount": 1999,
        "fee": 108,  # 3.90 % of 19.99 USD is 0.78, plus 0.30
        "net": 1891,
        "fee_details": [{"type": "processing_fee", "amount": 108, "currency": "USD"}],
        "currency": "USD",
        "source": card.id,
        "settlement": None,
        "available_on": "2026-12-01T09:00:00.000000Z",
        "created_at": "2026-12-01T09:00:00.000000Z",
    }


def test_a_payout_reserves_its_amount_and_fee_and_its_failure_gives_both_back(api, merchant):
    succeeded_mobile_money_charge(merchant, amount=20000)  # net 19400
    response = api.post("/v1/payouts", PAYOUT, format="json")
    assert response.status_code == 201, response.json()
    payout_id = response.json()["id"]
    assert Payout.objects.get(pk=payout_id).fee == 150
    assert row_of(payout_id, "payout") == {"amount": -10000, "fee": 150, "net": -10150}
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 19400 - 10150
    # 9250 left: a payout of 9200 would take 9338 with its fee.
    refused = api.post("/v1/payouts", {**PAYOUT, "amount": 9200}, format="json")
    assert_error(refused, 400, "invalid_request_error", "balance_insufficient")
    message = refused.json()["error"]["message"]
    assert "9250" in message and "9338" in message and "fee" in message
    payouts.payout_apply_outcome(
        payout_id=payout_id,
        outcome=ProviderOutcome(status="failed", failure_code="recipient_invalid"),
    )
    assert row_of(payout_id, "payout_failure") == {"amount": 10000, "fee": -150, "net": 10150}
    failure = api.get("/v1/balance_transactions?type=payout_failure").json()["data"][0]
    assert failure["fee_details"] == [{"type": "payout_fee", "amount": -150, "currency": "CDF"}]
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 19400
    assert ledger_check() == []


def test_a_refund_keeps_the_charges_fee_and_draws_its_amount_only(api, merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)  # fee 300, net 9700
    partial = refunds.refund_create(charge=charge, amount=4000)
    assert row_of(partial.id, "refund") == {"amount": -4000, "fee": 0, "net": -4000}
    # What is left (5700) cannot cover the rest of the charge (6000): the fee was the
    # operators', kept when a charge is refunded.
    refused = api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 6000}, format="json")
    assert_error(refused, 400, "invalid_request_error", "balance_insufficient")
    assert api.get(f"/v1/charges/{charge.id}").json()["fee"] == 300
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 5700


def test_a_late_payment_and_its_refund_carry_no_fee(merchant):
    failed = timed_out_charge(
        merchant,
        phone="+243812345005",  # the sandbox operator never answers it
        at=datetime(2026, 12, 1, 9, 0, tzinfo=UTC),
        amount=8000,
    )
    assert failed.fee_rate_bp == 300  # a rate was kept, but the charge never succeeded
    charges.charge_apply_outcome(charge_id=failed.id, outcome=ProviderOutcome(status="succeeded"))
    late = LedgerEntry.objects.get(charge=failed, type="late_payment")
    refund = LedgerEntry.objects.get(charge=failed, type="refund")
    assert (late.amount, late.fee, refund.amount, refund.fee) == (8000, 0, -8000, 0)
    assert ledger_check() == []


def test_rows_written_before_fees_read_as_fee_zero_available_from_creation(api, merchant):
    """A charge made before fees has no kept rate: no fee, and its row none."""
    charge = make_charge(merchant, amount=5000)
    type(charge).objects.filter(pk=charge.pk).update(
        fee_rate_bp=None, fee_fixed=None, fee_available_after_days=None
    )
    paid = sandbox_paid(charge.id)
    assert api.get(f"/v1/charges/{paid.id}").json()["fee"] == 0
    assert row_of(paid.id, "charge")["fee"] == 0
    assert ledger_check() == []


@pytest.mark.books_unchecked
def test_checkledger_finds_a_charge_row_whose_fee_its_rate_does_not_give(merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    # The rate kept on the charge says 300; make it say 200 behind the services' back.
    type(charge).objects.filter(pk=charge.pk).update(fee_rate_bp=200)
    problems = [p.problem for p in ledger_check()]
    assert f"{charge.id}: no charge row with its fee 200" in problems
    assert any(p.startswith("charge: expected (1, 10000, 200)") for p in problems)


def test_available_never_counts_the_future(merchant, settings):
    settings.PRICING_DEFAULT = [rate("charge", "mobile_money", bp=300, days=2)]
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False):
        succeeded_mobile_money_charge(merchant, amount=10000)

    def sums(at):
        return selectors.balance_sums(merchant=merchant, livemode=False, now=at)["CDF"]

    assert (sums(start).available, sums(start).pending) == (0, 9700)
    edge = start + timedelta(days=2)
    assert (sums(edge).available, sums(edge).pending) == (9700, 0)  # available on the dot
