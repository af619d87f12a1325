"""Settlements racing payouts and refunds for one balance, each request in its own thread and
database connection through the whole HTTP stack: every draw (amount and fee) is checked under
the one balance lock, available never goes below zero, and the books agree."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from payments import selectors
from payments.models import Payout, Refund, Settlement
from payments.services import settlements
from payments.services.ledger import ledger_check
from tests.factories import succeeded_mobile_money_charge
from tests.pricing import rate

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WALLET = {
    "type": "mobile_money",
    "currency": "CDF",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
}


def test_settlements_payouts_and_refunds_never_overdraw(merchant_keys, settings):
    settings.PRICING_DEFAULT = [
        rate("payout", "mobile_money", currency="CDF", bp=150),
        rate("settlement", "mobile_money", currency="CDF", bp=100),
    ]
    merchant = merchant_keys.merchant
    key = merchant_keys.test_key.plaintext
    charge = succeeded_mobile_money_charge(merchant, amount=60000)
    settlements.account_add(merchant=merchant, livemode=False, **WALLET)
    calls = (
        [("/v1/settlements", {"currency": "CDF", "amount": 15000})] * 4
        + [
            (
                "/v1/payouts",
                {
                    "amount": 10000,
                    "currency": "CDF",
                    "phone": "+243812345678",
                    "network": "VODACOM_MPESA",
                },
            )
        ]
        * 4
        + [(f"/v1/charges/{charge.id}/refunds", {"amount": 8000})] * 3
    )
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def worker(index: int) -> None:
        path, body = calls[index]
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
            barrier.wait(timeout=30)
            response = client.post(path, body, format="json")
            results[index] = (response.status_code, response.json())
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert all(result is not None for result in results), results
    refused = {(s, b["error"]["code"]) for s, b in results if s != 201}
    assert refused <= {(400, "balance_insufficient")}, results
    drawn = (
        sum(s.amount + s.fee for s in Settlement.objects.all())
        + sum(p.amount + p.fee for p in Payout.objects.all())
        + sum(r.amount for r in Refund.objects.all())
    )
    available = selectors.balance_sums(merchant=merchant, livemode=False)["CDF"].available
    assert drawn <= 60000 and available == 60000 - drawn >= 0
    assert available < 8000  # drawn until not even the smallest draw fitted
    assert ledger_check() == []
