"""Automatic settlements: at the cutoff (00:00 in the merchant's time zone; weekly, of the chosen
weekday) the amount a manual settlement would take becomes one automatic settlement, once per
period however many beats run, when it is at least the minimum; the balance transactions it
pays out carry its id."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from payments.models import Settlement, SettlementSchedule
from payments.services import settlements
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import race
from tests.pricing import rate

WALLET = {
    "type": "mobile_money",
    "currency": "CDF",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
}
# Monday 7 December 2026, 00:30 in Kinshasa (UTC+1).
AFTER_CUTOFF = datetime(2026, 12, 6, 23, 30, tzinfo=UTC)


@pytest.fixture(autouse=True)
def plan(settings):
    settings.PRICING_DEFAULT = [rate("settlement", "mobile_money", currency="CDF", bp=100)]


def funded(merchant, *, amount=50000):
    with time_machine.travel(AFTER_CUTOFF - timedelta(days=1), tick=False):
        charge = succeeded_mobile_money_charge(merchant, amount=amount)
        settlements.account_add(merchant=merchant, livemode=False, **WALLET)
    return charge


@pytest.mark.django_db
def test_the_periods_begin_at_midnight_in_the_merchants_time_zone(merchant):
    daily = SettlementSchedule(merchant=merchant, currency="CDF", interval="daily")
    assert settlements.schedule_period(daily, AFTER_CUTOFF)[0] == "2026-12-07"
    assert settlements.schedule_period(daily, AFTER_CUTOFF - timedelta(hours=1))[0] == "2026-12-06"
    merchant.time_zone = "Africa/Lubumbashi"  # UTC+2: its Monday began an hour earlier
    assert settlements.schedule_period(daily, AFTER_CUTOFF - timedelta(hours=1))[0] == "2026-12-07"
    weekly = SettlementSchedule(merchant=merchant, currency="CDF", interval="weekly", weekday=4)
    period, cutoff = settlements.schedule_period(weekly, AFTER_CUTOFF)
    assert period == "2026-W49" and cutoff.isoformat() == "2026-12-04T00:00:00+02:00"
    manual = SettlementSchedule(merchant=merchant, currency="CDF", interval="manual")
    assert settlements.schedule_period(manual, AFTER_CUTOFF) is None


@pytest.mark.django_db
def test_a_daily_schedule_settles_once_and_its_transactions_carry_the_settlement(api, merchant):
    charge = funded(merchant)
    SettlementSchedule.objects.create(merchant=merchant, currency="CDF", interval="daily")
    with time_machine.travel(AFTER_CUTOFF, tick=False):
        assert settlements.settlements_schedule_due() == 1
        assert settlements.settlements_schedule_due() == 0  # the same period: nothing more
        late = succeeded_mobile_money_charge(merchant, amount=10000)  # after the cutoff
    [made] = Settlement.objects.all()
    assert (made.method, made.period, made.amount, made.fee) == (
        "automatic",
        "2026-12-07",
        49500,
        495,
    )
    shown = api.get(f"/v1/balance_transactions?settlement={made.id}").json()["data"]
    assert [row["source"] for row in shown] == [made.id, charge.id]  # its own row, newest
    assert {row["settlement"] for row in shown} == {made.id}
    later = api.get("/v1/balance_transactions?type=charge").json()["data"][0]
    assert (later["source"], later["settlement"]) == (late.id, None)
    body = api.get(f"/v1/settlements/{made.id}").json()
    assert body["method"] == "automatic"
    with time_machine.travel(AFTER_CUTOFF + timedelta(days=1), tick=False):
        assert settlements.settlements_schedule_due() == 1  # the next day's
    second = Settlement.objects.exclude(pk=made.pk).get()
    settled = api.get(f"/v1/balance_transactions?settlement={second.id}").json()["data"]
    assert [row["source"] for row in settled] == [second.id, late.id]


@pytest.mark.django_db
def test_below_the_minimum_nothing_is_settled(merchant):
    funded(merchant, amount=5000)
    SettlementSchedule.objects.create(
        merchant=merchant, currency="CDF", interval="daily", minimum=10000
    )
    with time_machine.travel(AFTER_CUTOFF, tick=False):
        assert settlements.settlements_schedule_due() == 0
    assert not Settlement.objects.exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_beats_at_once_make_one_settlement_of_a_period(merchant):
    funded(merchant)
    SettlementSchedule.objects.create(merchant=merchant, currency="CDF", interval="daily")
    with time_machine.travel(AFTER_CUTOFF, tick=False):
        made = race(lambda: settlements.settlements_schedule_due(), count=4)
    assert sorted(made) == [0, 0, 0, 1], made
    assert Settlement.objects.count() == 1
