"""GET /v1/balance, GET /v1/balance_transactions and its CSV export: the merchant's own mode
only, sums of the ledger, the list envelope with its filters and keyset pages."""

import csv
import io
from datetime import UTC, datetime

import pytest
import time_machine

from payments import services
from payments.models import LedgerEntry
from tests.factories import succeeded_card_charge, succeeded_mobile_money_charge
from tests.helpers import assert_error

pytestmark = pytest.mark.django_db


def test_the_balance_is_the_sum_of_the_ledger_per_currency_and_mode(api, live_api, merchant):
    assert api.get("/v1/balance").json() == {
        "object": "balance",
        "livemode": False,
        "available": [{"currency": "CDF", "amount": 0}, {"currency": "USD", "amount": 0}],
        "pending": [{"currency": "CDF", "amount": 0}, {"currency": "USD", "amount": 0}],
    }
    charge = succeeded_mobile_money_charge(merchant, amount=25000)
    succeeded_card_charge(merchant, amount=1999)
    services.refund_create(charge=charge, amount=5000)
    body = api.get("/v1/balance").json()
    assert body["available"] == [
        {"currency": "CDF", "amount": 20000},
        {"currency": "USD", "amount": 1999},
    ]
    live = live_api.get("/v1/balance").json()
    assert live["livemode"] is True
    assert live["available"] == [{"currency": "CDF", "amount": 0}, {"currency": "USD", "amount": 0}]


def test_balance_transactions_list_filters_and_pages(api, live_api, merchant):
    with time_machine.travel(datetime(2026, 11, 20, 9, 0, tzinfo=UTC), tick=False):
        charge = succeeded_mobile_money_charge(merchant, amount=25000)
    with time_machine.travel(datetime(2026, 11, 21, 9, 0, tzinfo=UTC), tick=False):
        card = succeeded_card_charge(merchant, amount=1999)
    with time_machine.travel(datetime(2026, 11, 22, 9, 0, tzinfo=UTC), tick=False):
        refund = services.refund_create(charge=charge, amount=5000)

    body = api.get("/v1/balance_transactions").json()
    assert (body["object"], body["url"], body["has_more"]) == (
        "list",
        "/v1/balance_transactions",
        False,
    )
    assert [row["source"] for row in body["data"]] == [refund.id, card.id, charge.id]
    assert body["data"][0] == {
        "id": body["data"][0]["id"],
        "object": "balance_transaction",
        "livemode": False,
        "type": "refund",
        "amount": -5000,
        "fee": 0,
        "net": -5000,
        "fee_details": [],
        "currency": "CDF",
        "source": refund.id,
        "settlement": None,
        "available_on": "2026-11-22T09:00:00.000000Z",
        "created_at": "2026-11-22T09:00:00.000000Z",
    }
    assert [
        r["source"] for r in api.get("/v1/balance_transactions?currency=USD").json()["data"]
    ] == [card.id]
    assert [r["type"] for r in api.get("/v1/balance_transactions?type=refund").json()["data"]] == [
        "refund"
    ]
    day = api.get("/v1/balance_transactions?date_from=2026-11-21&date_to=2026-11-21").json()
    assert [r["source"] for r in day["data"]] == [card.id]
    first = api.get("/v1/balance_transactions?limit=1").json()
    assert first["has_more"] is True
    after = first["data"][0]["id"]
    second = api.get(f"/v1/balance_transactions?limit=1&starting_after={after}").json()
    assert [r["source"] for r in second["data"]] == [card.id]
    assert live_api.get("/v1/balance_transactions").json()["data"] == []


@pytest.mark.parametrize(
    "query, param",
    [
        ("type=bonus", "type"),
        ("currency=EUR", "currency"),
        ("date_from=yesterday", "date_from"),
        ("limit=0", "limit"),
        ("colour=red", "colour"),
    ],
)
def test_balance_transactions_refuse_bad_filters(api, query, param):
    response = api.get(f"/v1/balance_transactions?{query}")
    assert response.status_code == 400
    assert response.json()["error"]["param"] == param


def test_the_ledger_of_another_merchant_is_not_seen(api, merchant):
    from tests.factories import merchant_with_keys

    other = merchant_with_keys(name="Other").merchant
    succeeded_card_charge(other, amount=1999)
    assert api.get("/v1/balance_transactions").json()["data"] == []
    assert api.get("/v1/balance").json()["available"][1] == {"currency": "USD", "amount": 0}


def _csv(response) -> list[list[str]]:
    assert response.streaming
    raw = b"".join(response.streaming_content)
    assert raw.startswith(b"\xef\xbb\xbf")  # UTF-8 byte order mark: Excel reads it as UTF-8
    text = raw.decode("utf-8-sig")
    assert "\r\n" in text
    return list(csv.reader(io.StringIO(text, newline="")))


def test_the_export_of_a_day_is_a_csv_with_the_operator_reference_and_phone(api, merchant):
    with time_machine.travel(datetime(2026, 11, 20, 23, 59, tzinfo=UTC), tick=False):
        succeeded_card_charge(merchant, amount=1999)
    with time_machine.travel(datetime(2026, 11, 21, 8, 0, tzinfo=UTC), tick=False):
        charge = succeeded_mobile_money_charge(merchant, amount=25000)
    with time_machine.travel(datetime(2026, 11, 21, 10, 0, tzinfo=UTC), tick=False):
        refund = services.refund_create(charge=charge, amount=5000)
    with time_machine.travel(datetime(2026, 11, 22, 0, 0, tzinfo=UTC), tick=False):
        succeeded_card_charge(merchant, amount=500)
    charge.refresh_from_db()
    refund.refresh_from_db()

    response = api.get("/v1/balance_transactions/export?date_from=2026-11-21&date_to=2026-11-21")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith(
        'attachment; filename="balance-transactions-test-'
    )
    lines = _csv(response)
    assert lines[0] == [
        "id",
        "created_at",
        "type",
        "amount",
        "amount_decimal",
        "currency",
        "source",
        "network",
        "phone",
        "operator_reference",
        "fee",
        "net",
        "available_on",
    ]
    entries = list(
        LedgerEntry.objects.filter(source__in=[charge.id, refund.id]).order_by("created_at")
    )
    assert lines[1:] == [
        [
            entries[0].id,
            "2026-11-21T08:00:00.000000Z",
            "charge",
            "25000",
            "250.00",
            "CDF",
            charge.id,
            "VODACOM_MPESA",
            "+243812345678",
            charge.provider_reference,
            "0",
            "25000",
            "2026-11-21T08:00:00.000000Z",
        ],
        [
            entries[1].id,
            "2026-11-21T10:00:00.000000Z",
            "refund",
            "-5000",
            "-50.00",
            "CDF",
            refund.id,
            "VODACOM_MPESA",
            "+243812345678",
            refund.provider_reference,
            "0",
            "-5000",
            "2026-11-21T10:00:00.000000Z",
        ],
    ]
    assert charge.provider_reference  # the sandbox operator's reference is there to match


def test_the_export_refuses_bad_dates_in_the_json_envelope(api):
    response = api.get("/v1/balance_transactions/export?date_to=9999-12-31T23:59:59-14:00")
    assert_error(response, 400, "invalid_request_error", "parameter_invalid")
    assert response.json()["error"]["param"] == "date_to"
