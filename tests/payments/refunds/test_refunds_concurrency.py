"""Simultaneous refund requests never refund more than the charge.

Each request runs in its own thread with its own database connection, through the whole HTTP
stack; they are released together by a barrier so that they race for the charge's row lock.
"""

import threading
from collections import Counter

import pytest
from django.db import connection

from payments.models import Charge, Refund
from tests.factories import succeeded_card_charge, succeeded_mobile_money_charge
from tests.helpers import api_client

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

REFUSALS = {"amount_exceeds_refundable", "charge_not_refundable"}


def race_refunds(secret_key: str, charge_id: str, bodies: list[dict]) -> list[tuple[int, dict]]:
    barrier = threading.Barrier(len(bodies))
    results: list[tuple[int, dict] | None] = [None] * len(bodies)

    def worker(index: int, body: dict) -> None:
        try:
            client = api_client(secret_key)
            barrier.wait(timeout=30)
            response = client.post(f"/v1/charges/{charge_id}/refunds", body, format="json")
            results[index] = (response.status_code, response.json())
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, b)) for i, b in enumerate(bodies)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(result is not None for result in results), results
    return results


def check_outcome(charge: Charge, results: list[tuple[int, dict]]) -> list[dict]:
    created = [body for status, body in results if status == 201]
    refused = [body for status, body in results if status != 201]
    assert all(status in (201, 400) for status, _ in results), results
    assert {body["error"]["code"] for body in refused} <= REFUSALS, refused
    assert refused, "the requests asked for more than the charge; some must be refused"

    kept = [body for body in created if body["status"] != "failed"]
    assert sum(body["amount"] for body in kept) <= charge.amount
    charge.refresh_from_db()
    in_db = Refund.objects.filter(charge=charge)
    assert in_db.count() == len(created)
    assert charge.amount_refunded == sum(r.amount for r in in_db.exclude(status="failed"))
    assert charge.amount_refunded == sum(body["amount"] for body in kept)
    assert charge.status == "succeeded"
    return created


def test_simultaneous_partial_and_full_refunds_of_a_card_charge(merchant_keys):
    charge = succeeded_card_charge(merchant_keys.merchant, amount=10000)
    bodies = [{"amount": 1500} for _ in range(12)] + [{}, {}]  # 18000 + two full refunds
    results = race_refunds(merchant_keys.test_key.plaintext, charge.id, bodies)
    created = check_outcome(charge, results)
    # Whenever a full refund gets the lock it takes what remains, so the charge ends fully refunded.
    charge.refresh_from_db()
    assert charge.amount_refunded == 10000
    assert Counter(body["status"] for body in created) == {"succeeded": len(created)}


def test_failed_refunds_free_their_amount_while_others_race(merchant_keys):
    charge = succeeded_mobile_money_charge(merchant_keys.merchant, amount=20000)
    fail = {"sandbox_refund": "fail"}
    bodies = [{"amount": 4000, "metadata": fail} for _ in range(4)] + [
        {"amount": 3000} for _ in range(12)
    ]  # 16000 that fail at the operator, 36000 that would succeed
    results = race_refunds(merchant_keys.test_key.plaintext, charge.id, bodies)
    created = check_outcome(charge, results)
    succeeded = [body for body in created if body["status"] == "succeeded"]
    assert all(body["amount"] == 3000 for body in succeeded)
    assert len(succeeded) <= 6
