"""Simultaneous payouts never overdraw: each request in its own thread and database connection,
through the whole HTTP stack, released together to race for the balance lock."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from payments.models import LedgerEntry, Payout
from payments.services.ledger import ledger_check
from tests.factories import succeeded_mobile_money_charge

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

BODY = {"amount": 10000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


def race(secret_key: str, count: int, path: str, body: dict) -> list[tuple[int, dict]]:
    barrier = threading.Barrier(count)
    results: list[tuple[int, dict] | None] = [None] * count

    def worker(index: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {secret_key}")
            barrier.wait(timeout=30)
            response = client.post(path, body, format="json")
            results[index] = (response.status_code, response.json())
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(result is not None for result in results), results
    return results


def test_ten_payouts_against_a_balance_that_holds_two(merchant_keys):
    merchant = merchant_keys.merchant
    succeeded_mobile_money_charge(merchant, amount=25000)  # two payouts of 10000, not three
    results = race(merchant_keys.test_key.plaintext, 10, "/v1/payouts", BODY)
    accepted = [body for status, body in results if status == 201]
    refused = [body for status, body in results if status != 201]
    assert len(accepted) == 2, results
    assert {(status, body["error"]["code"]) for status, body in results if status != 201} == {
        (400, "balance_insufficient")
    }
    assert len(refused) == 8
    assert Payout.objects.count() == 2
    assert sum(LedgerEntry.objects.values_list("amount", flat=True)) == 5000
    assert ledger_check() == []


def test_payouts_racing_refunds_and_charges_keep_the_books(merchant_keys):
    """Payouts of two currencies and refunds at once: each is checked against its own
    currency's balance under the same lock, and the ledger still agrees with its sources."""
    merchant = merchant_keys.merchant
    charge = succeeded_mobile_money_charge(merchant, amount=30000)
    succeeded_mobile_money_charge(merchant, amount=20000, currency="USD")
    key = merchant_keys.test_key.plaintext
    out: dict[str, list] = {}

    def run(name, count, path, body):
        out[name] = race(key, count, path, body)

    threads = [
        threading.Thread(target=run, args=("cdf", 5, "/v1/payouts", BODY)),
        threading.Thread(
            target=run,
            args=("usd", 5, "/v1/payouts", {**BODY, "currency": "USD", "amount": 5000}),
        ),
        threading.Thread(
            target=run, args=("refund", 2, f"/v1/charges/{charge.id}/refunds", {"amount": 5000})
        ),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=90)
    usd_accepted = [b for s, b in out["usd"] if s == 201]
    assert len(usd_accepted) == 4  # 20000 USD holds exactly four of 5000
    cdf_accepted = [b for s, b in out["cdf"] if s == 201]
    refunds = [b for s, b in out["refund"] if s == 201]
    refused = [(s, b["error"]["code"]) for s, b in out["cdf"] + out["refund"] if s != 201]
    assert set(refused) == {(400, "balance_insufficient")}
    # Neither refunds nor payouts take the balance below zero, and whatever came first, what
    # the balance held was drawn to the last franc: three payouts, or two and both refunds.
    drawn = 10000 * len(cdf_accepted) + 5000 * len(refunds)
    assert drawn == 30000, out
    cdf = sum(LedgerEntry.objects.filter(currency="CDF").values_list("amount", flat=True))
    assert cdf == 30000 - drawn
    assert ledger_check() == []
