"""Refunds, payouts and card charges racing in both currencies, with fees: each draw is checked
against the available balance of its currency (a payout's amount and fee) under the one balance
lock, available never goes below zero, and the books agree with their sources. Each request in
its own thread and database connection, through the whole HTTP stack, released together."""

import threading

import pytest
from django.db import connection
from rest_framework.test import APIClient

from payments import selectors
from payments.models import LedgerEntry, Payout, Refund
from payments.services.ledger import ledger_check
from tests.factories import make_charge, settle, succeeded_mobile_money_charge
from tests.pricing import rate

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


PLAN = [
    rate("charge", "mobile_money", currency="CDF", bp=300),
    rate("charge", "mobile_money", currency="USD", bp=300),
    rate("charge", "card", currency="USD", bp=390, fixed=30),
    rate("payout", "mobile_money", currency="CDF", bp=150),
    rate("payout", "mobile_money", currency="USD", bp=200, fixed=10),
]
PHONE = {"phone": "+243812345678", "network": "VODACOM_MPESA"}


@pytest.fixture(autouse=True)
def plan(settings):
    settings.PRICING_DEFAULT = PLAN


def test_draws_in_both_currencies_never_take_available_below_zero(merchant_keys):
    merchant = merchant_keys.merchant
    key = merchant_keys.test_key.plaintext
    cdf_charge = succeeded_mobile_money_charge(merchant, amount=40000)  # net 38800
    usd_charge = succeeded_mobile_money_charge(merchant, amount=20000, currency="USD")  # 19400
    pending_cards = [
        make_charge(merchant, payment_method="card", amount=1000, currency="USD") for _ in range(4)
    ]
    calls = (
        [("POST", "/v1/payouts", {"amount": 10000, "currency": "CDF", **PHONE})] * 5
        + [("POST", "/v1/payouts", {"amount": 5000, "currency": "USD", **PHONE})] * 5
        + [("POST", f"/v1/charges/{cdf_charge.id}/refunds", {"amount": 6000})] * 3
        + [("POST", f"/v1/charges/{usd_charge.id}/refunds", {"amount": 3000})] * 3
        + [("CARD", card.id, None) for card in pending_cards]
    )
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def worker(index: int) -> None:
        kind, path, body = calls[index]
        try:
            barrier.wait(timeout=30)
            if kind == "CARD":  # the card provider's answer that the payment was accepted
                settle(type(cdf_charge).objects.get(pk=path), "succeeded")
                results[index] = (200, {})
                return
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
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
    refused = {(s, b["error"]["code"]) for s, b in results if s not in (200, 201)}
    assert refused <= {(400, "balance_insufficient")}, results

    sums = selectors.balance_sums(merchant=merchant, livemode=False)
    assert sums["CDF"].available >= 0 and sums["USD"].available >= 0
    assert sums["CDF"].pending == sums["USD"].pending == 0
    # What was drawn is what the rows say, fees included, and never more than came in.
    cdf_drawn = sum(p.amount + p.fee for p in Payout.objects.filter(currency="CDF")) + sum(
        r.amount for r in Refund.objects.filter(currency="CDF")
    )
    assert cdf_drawn <= 38800 and sums["CDF"].available == 38800 - cdf_drawn
    # The CDF balance was drawn to less than the smallest draw: a refund of 6000.
    assert sums["CDF"].available < 6000
    cards_net = 4 * (1000 - 69)  # 3.90 % of 10 USD is 0.39, plus 0.30
    usd_in = 19400 + cards_net
    usd_drawn = sum(p.amount + p.fee for p in Payout.objects.filter(currency="USD")) + sum(
        r.amount for r in Refund.objects.filter(currency="USD")
    )
    assert usd_drawn <= usd_in and sums["USD"].available == usd_in - usd_drawn
    for currency in ("CDF", "USD"):
        net = sum(e.amount - e.fee for e in LedgerEntry.objects.filter(currency=currency))
        assert net == sums[currency].available + sums[currency].pending
    assert ledger_check() == []
