"""Pending and available: a charge's net is pending until its plan's delay has passed; refunds
and payouts draw on what is available only; balance checkpoints hold rows that become available
later without a read of the history."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection
from django.utils import timezone

from payments import selectors
from payments.models import LedgerEntry
from payments.services import ledger
from tests.factories import succeeded_card_charge, succeeded_mobile_money_charge
from tests.helpers import assert_error
from tests.pricing import rate

pytestmark = pytest.mark.django_db

START = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
PLAN = [
    rate("charge", "mobile_money", bp=300, days=2),
    rate("charge", "card", currency="USD", days=7),
]
PAYOUT = {"amount": 5000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


@pytest.fixture(autouse=True)
def plan(settings):
    settings.PRICING_DEFAULT = PLAN


def balance(api) -> dict:
    body = api.get("/v1/balance").json()
    return {
        "available": {row["currency"]: row["amount"] for row in body["available"]},
        "pending": {row["currency"]: row["amount"] for row in body["pending"]},
    }


def test_a_charges_net_is_pending_until_its_delay_has_passed(api, merchant):
    with time_machine.travel(START, tick=False):
        charge = succeeded_mobile_money_charge(merchant, amount=10000)
        card = succeeded_card_charge(merchant, amount=1999)
        assert balance(api) == {
            "available": {"CDF": 0, "USD": 0},
            "pending": {"CDF": 9700, "USD": 1999},
        }
        row = api.get("/v1/balance_transactions?currency=CDF").json()["data"][0]
        assert row["available_on"] == "2026-12-03T09:00:00.000000Z"
        # Nothing pending can be drawn on: neither a refund nor a payout.
        refused = api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 1000}, format="json")
        assert_error(refused, 400, "invalid_request_error", "balance_insufficient")
        refused = api.post("/v1/payouts", PAYOUT, format="json")
        assert_error(refused, 400, "invalid_request_error", "balance_insufficient")
    with time_machine.travel(START + timedelta(days=2), tick=False):
        assert balance(api) == {
            "available": {"CDF": 9700, "USD": 0},
            "pending": {"CDF": 0, "USD": 1999},
        }
        refund = api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 1000}, format="json")
        assert refund.status_code == 201
        # The refund is available at once, as every row but a charge's is.
        assert balance(api)["available"]["CDF"] == 8700
    with time_machine.travel(START + timedelta(days=7), tick=False):
        assert balance(api)["available"] == {"CDF": 8700, "USD": 1999}
        card_refund = api.post(f"/v1/charges/{card.id}/refunds", {"amount": 1999}, format="json")
        assert card_refund.status_code == 201
        assert balance(api) == {
            "available": {"CDF": 8700, "USD": 0},
            "pending": {"CDF": 0, "USD": 0},
        }


def test_a_checkpoint_holds_rows_that_become_available_later(merchant):
    """A checkpoint adds up every row's net, pending or not; the pending part is read apart, so
    a row that becomes available after its checkpoint moves from pending to available with no
    new checkpoint and no read of the rows before it."""
    with time_machine.travel(START, tick=False):
        for amount in (10000, 20000):
            succeeded_mobile_money_charge(merchant, amount=amount)
    made = ledger.ledger_checkpoint(merchant_id=merchant.pk, livemode=False, currency="CDF")
    assert (made.epoch, made.total, made.entries) == (1, 29100, 2)

    def sums(at):
        return selectors.balance_sums(merchant=merchant, livemode=False, now=at)["CDF"]

    assert sums(START) == selectors.BalanceSums(available=0, pending=29100, rows=0)
    later = START + timedelta(days=2, seconds=1)
    assert sums(later) == selectors.BalanceSums(available=29100, pending=0, rows=0)


@pytest.mark.postgres
@pytest.mark.books_unchecked
def test_the_pending_part_reads_its_own_index_not_the_history(merchant):
    """A history of rows available long ago, and one pending: the pending part is an index
    range of the rows still to come, whatever the history holds."""
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    long_ago = timezone.now() - timedelta(days=400)
    LedgerEntry.objects.bulk_create(
        LedgerEntry(
            merchant=merchant,
            livemode=False,
            currency="CDF",
            type="charge",
            amount=100,
            fee=3,
            source=f"old_{number}",
            charge=charge,
            available_on=long_ago,
            created_at=long_ago,
        )
        for number in range(3000)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE payments_ledgerentry")
        cursor.execute(
            "EXPLAIN SELECT SUM(amount - fee) FROM payments_ledgerentry WHERE merchant_id = %s"
            " AND livemode = false AND currency = 'CDF' AND available_on > now()",
            [merchant.pk],
        )
        plan = "\n".join(line for (line,) in cursor.fetchall())
    assert "ledger_pending_idx" in plan, plan


def test_a_card_charge_refunded_while_pending_waits_for_available_money(api, merchant):
    """A refund of a charge whose net is still pending is refused while nothing is available,
    and the books stay right."""
    with time_machine.travel(START, tick=False):
        card = succeeded_card_charge(merchant, amount=1999)
        refused = api.post(f"/v1/charges/{card.id}/refunds", {"amount": 500}, format="json")
        assert_error(refused, 400, "invalid_request_error", "balance_insufficient")
    assert LedgerEntry.objects.filter(type="refund").count() == 0
