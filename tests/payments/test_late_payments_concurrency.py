"""A late success reported several times at once (the operator's callback, our reconciliation
check, a staff check) is refunded exactly once: the charge's row lock decides (contract §4a)."""

import threading

import pytest
from django.db import connection

from payments import services
from payments.models import Charge, Refund
from payments.providers.base import ProviderOutcome

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RACERS = 6


def race(target, count: int = RACERS) -> list:
    barrier = threading.Barrier(count)
    results: list = []

    def run() -> None:
        try:
            barrier.wait(timeout=30)
            results.append(target())
        except Exception as exc:  # noqa: BLE001 - each racer's outcome is what we check
            results.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def timed_out_charge(merchant) -> Charge:
    charge = services.charge_create(
        merchant=merchant,
        livemode=False,
        amount=5000,
        currency="CDF",
        phone="+243812345005",
        network="VODACOM_MPESA",
    )
    return services.charge_apply_outcome(
        charge_id=charge.id, outcome=ProviderOutcome(status="failed", failure_code="timeout")
    )


def test_concurrent_late_successes_create_one_refund(merchant):
    charge = timed_out_charge(merchant)
    results = race(
        lambda: services.charge_apply_outcome(
            charge_id=charge.id, outcome=ProviderOutcome(status="succeeded", raw={"at": "once"})
        )
    )
    assert all(isinstance(r, Charge) for r in results), results
    charge.refresh_from_db()
    assert charge.status == "failed" and charge.late_payment_at is not None
    refunds = Refund.objects.filter(charge=charge)
    assert [(r.reason, r.amount) for r in refunds] == [("late_payment", 5000)]
    assert charge.amount_refunded == 5000


def test_concurrent_late_payment_calls_create_one_refund(merchant):
    charge = timed_out_charge(merchant)
    results = race(lambda: services.charge_late_payment(charge_id=charge.id, answer={}))
    made = [r for r in results if isinstance(r, Refund)]
    assert len(made) == 1 and results.count(None) == RACERS - 1, results
    assert Refund.objects.filter(charge=charge).count() == 1
    assert Charge.objects.get(pk=charge.id).amount_refunded == 5000
