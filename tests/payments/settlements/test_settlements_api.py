"""Settlement accounts and settlements through the API: the accounts' shapes and rules (last4
only, the default, the hold of a new live account), the order of a settlement's checks, its
default amount, amount and fee reserved, the sandbox's rail (in transit at once, paid after
SANDBOX_SETTLEMENT_DELAY, 0001 fails and gives both back), events and the books."""

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from payments.models import LedgerEntry, Settlement
from payments.services import settlements
from tests.factories import (
    merchant_with_keys,
    succeeded_live_charge,
    succeeded_mobile_money_charge,
)
from tests.helpers import assert_error
from tests.pricing import rate
from webhooks.models import Event

pytestmark = pytest.mark.django_db

NOW = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
BANK = {
    "type": "bank_account",
    "currency": "CDF",
    "bank_name": "Rawbank",
    "account_holder": "Boutique Gombe SARL",
    "account_number": "0501 2345 6789 4821",
    "swift": "rawbcdki",
}
WALLET = {
    "type": "mobile_money",
    "currency": "CDF",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
}


@pytest.fixture(autouse=True)
def plan(settings):
    settings.PRICING_DEFAULT = [
        rate("settlement", "mobile_money", currency="CDF", bp=100),
        rate("settlement", currency="CDF", fixed=5000),
    ]
    settings.SANDBOX_SETTLEMENT_DELAY = 5


def test_a_bank_account_shows_its_last_four_only_and_is_the_currencys_default(api, merchant):
    with time_machine.travel(NOW, tick=False):
        response = api.post("/v1/settlement_accounts", BANK, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body == {
        "id": body["id"],
        "object": "settlement_account",
        "livemode": False,
        "type": "bank_account",
        "currency": "CDF",
        "bank_name": "Rawbank",
        "account_holder": "Boutique Gombe SARL",
        "last4": "4821",
        "default": True,
        "available_from": "2026-12-01T09:00:00.000000Z",  # test mode: no hold
        "created_at": "2026-12-01T09:00:00.000000Z",
    }
    assert body["id"].startswith("sa_")
    assert "050123456789" not in api.get("/v1/settlement_accounts").content.decode()
    wallet = api.post("/v1/settlement_accounts", WALLET, format="json").json()
    assert (wallet["default"], wallet["account_holder"], wallet["last4"]) == (
        False,
        merchant.name,
        "5678",
    )
    assert "bank_name" not in wallet and wallet["network"] == "VODACOM_MPESA"
    listed = api.get("/v1/settlement_accounts").json()
    assert [a["id"] for a in listed["data"]] == [wallet["id"], body["id"]]
    deleted = api.delete(f"/v1/settlement_accounts/{body['id']}")
    assert deleted.json() == {"id": body["id"], "object": "settlement_account", "deleted": True}
    # The oldest remaining account of the currency becomes its default.
    assert api.get("/v1/settlement_accounts").json()["data"][0]["default"] is True
    assert api.delete(f"/v1/settlement_accounts/{body['id']}").status_code == 404


@pytest.mark.parametrize(
    ("body", "param", "code"),
    [
        ({**BANK, "account_number": "12 34"}, "account_number", "parameter_invalid"),
        ({**BANK, "account_number": "1234-5678-90"}, "account_number", "parameter_invalid"),
        ({**BANK, "swift": "RAW"}, "swift", "parameter_invalid"),
        ({k: v for k, v in BANK.items() if k != "bank_name"}, "bank_name", "parameter_missing"),
        ({**WALLET, "bank_name": "Rawbank"}, "bank_name", "parameter_unknown"),
        ({**WALLET, "network": "ORANGE_MONEY"}, "phone", "phone_network_mismatch"),
        ({**BANK, "currency": "EUR"}, "currency", "currency_not_supported"),
    ],
)
def test_a_wrong_account_is_refused_in_words(api, body, param, code):
    response = api.post("/v1/settlement_accounts", body, format="json")
    assert response.status_code == 400, response.json()
    error = response.json()["error"]
    assert (error["param"], error["code"]) == (param, code)


def test_a_new_live_account_is_held_and_a_settlement_checks_in_order(live_api, merchant):
    # Not approved: 403 first, whatever else is missing.
    refused = live_api.post("/v1/settlements", {"currency": "CDF"}, format="json")
    assert_error(refused, 403, "permission_error", "live_mode_not_approved")
    charge_time = NOW - timedelta(days=1)
    with time_machine.travel(charge_time, tick=False):
        succeeded_live_charge(merchant, amount=100000)  # approves the merchant
    with time_machine.travel(NOW, tick=False):
        missing = live_api.post("/v1/settlements", {"currency": "CDF"}, format="json")
        assert_error(missing, 400, "invalid_request_error", "settlement_account_missing")
        account = live_api.post("/v1/settlement_accounts", BANK, format="json").json()
        assert account["available_from"] == "2026-12-03T09:00:00.000000Z"  # two days' hold
        held = live_api.post("/v1/settlements", {"currency": "CDF"}, format="json")
        assert_error(held, 400, "invalid_request_error", "settlement_account_on_hold")
    with time_machine.travel(NOW + timedelta(days=2), tick=False):
        too_much = live_api.post(
            "/v1/settlements", {"currency": "CDF", "amount": 100000}, format="json"
        )
        assert_error(too_much, 400, "invalid_request_error", "balance_insufficient")
        made = live_api.post("/v1/settlements", {"currency": "CDF"}, format="json")
    assert made.status_code == 201, made.json()
    body = made.json()
    # All that is available: 100000 = amount + a 5000 bank fee.
    assert (body["amount"], body["fee"], body["status"], body["method"]) == (
        95000,
        5000,
        "pending",  # a live bank settlement waits for staff's transfer file
        "manual",
    )
    assert body["settlement_account"] == {
        "id": account["id"],
        "type": "bank_account",
        "bank_name": "Rawbank",
        "last4": "4821",
    }


def test_a_test_settlement_is_in_transit_at_once_then_paid(api, merchant):
    with time_machine.travel(NOW - timedelta(hours=1), tick=False):
        succeeded_mobile_money_charge(merchant, amount=50000)
    with time_machine.travel(NOW, tick=False):
        api.post("/v1/settlement_accounts", WALLET, format="json")
        made = api.post("/v1/settlements", {"currency": "CDF"}, format="json")
    assert made.status_code == 201, made.json()
    body = made.json()
    # The largest whole amount whose 1.00 % fee the 500 CDF cover: 495 CDF, fee 4.95 CDF.
    assert (body["amount"], body["fee"], body["status"]) == (49500, 495, "in_transit")
    assert body["reference"].startswith("CONGOPAY ")
    row = LedgerEntry.objects.get(source=body["id"], type="settlement")
    assert (row.amount, row.fee) == (-49500, 495)
    shown = api.get("/v1/balance_transactions?type=settlement").json()["data"][0]
    assert shown["fee_details"] == [{"type": "settlement_fee", "amount": 495, "currency": "CDF"}]
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 5
    with time_machine.travel(NOW + timedelta(seconds=4), tick=False):
        assert settlements.settlement_refresh(settlement_id=body["id"]).status == "in_transit"
    with time_machine.travel(NOW + timedelta(seconds=5), tick=False):
        paid = settlements.settlement_refresh(settlement_id=body["id"])
    assert paid.status == "paid"
    shown = api.get(f"/v1/settlements/{body['id']}").json()
    assert shown["status"] == "paid" and shown["operator_reference"]
    assert list(
        Event.objects.filter(type__startswith="settlement.").values_list("type", flat=True)
    ) == ["settlement.paid"]


def test_a_failed_test_settlement_gives_amount_and_fee_back(api, merchant):
    with time_machine.travel(NOW - timedelta(hours=1), tick=False):
        succeeded_mobile_money_charge(merchant, amount=50000)
    with time_machine.travel(NOW, tick=False):
        api.post(
            "/v1/settlement_accounts", {**BANK, "account_number": "0501 0000 0001"}, format="json"
        )
        made = api.post("/v1/settlements", {"currency": "CDF", "amount": 20000}, format="json")
    assert made.json()["fee"] == 5000
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 25000
    with time_machine.travel(NOW + timedelta(seconds=6), tick=False):
        failed = settlements.settlement_refresh(settlement_id=made.json()["id"])
    assert (failed.status, failed.failure_code) == ("failed", "account_invalid")
    back = LedgerEntry.objects.get(source=failed.id, type="settlement_failure")
    assert (back.amount, back.fee) == (20000, -5000)
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 50000
    assert api.get("/v1/settlements?status=failed").json()["data"][0]["id"] == failed.id


def test_a_wallet_settlement_is_in_whole_units(api, merchant):
    succeeded_mobile_money_charge(merchant, amount=50000)
    api.post("/v1/settlement_accounts", WALLET, format="json")
    refused = api.post("/v1/settlements", {"currency": "CDF", "amount": 1050}, format="json")
    assert_error(refused, 400, "invalid_request_error", "amount_invalid")
    nothing = api.post("/v1/settlements", {"currency": "USD"}, format="json")
    assert_error(nothing, 400, "invalid_request_error", "settlement_account_missing")
    api.post("/v1/settlement_accounts", {**WALLET, "currency": "USD"}, format="json")
    empty = api.post("/v1/settlements", {"currency": "USD"}, format="json")
    assert_error(empty, 400, "invalid_request_error", "balance_insufficient")
    assert empty.json()["error"]["message"] == "There is nothing available to settle in USD."


def test_another_merchants_settlement_is_missing(api, merchant):
    other = merchant_with_keys(name="Autre")
    succeeded_mobile_money_charge(other.merchant, amount=50000)
    account = settlements.account_add(merchant=other.merchant, livemode=False, **WALLET)
    made = settlements.settlement_create(merchant=other.merchant, livemode=False, currency="CDF")
    assert api.get(f"/v1/settlements/{made.id}").status_code == 404
    assert api.delete(f"/v1/settlement_accounts/{account.id}").status_code == 404
    assert Settlement.objects.count() == 1


def test_the_largest_amount_the_balance_covers_with_its_fee():
    def fee(amount):
        return (amount * 100 + 5000) // 10000

    for available in (0, 1, 99, 100, 101, 10000, 123457, 10**12):
        for step in (1, 100):
            best = settlements.largest_amount(available, fee_of=fee, step=step)
            assert best % step == 0 and best + fee(best) <= available
            assert best + step + fee(best + step) > available
