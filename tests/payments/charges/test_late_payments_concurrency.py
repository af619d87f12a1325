"""A late success reported several times at once (the operator's callback, our reconciliation
check, a staff check) is refunded exactly once: the charge's row lock decides."""

import pytest

from payments.models import Charge, Refund
from payments.providers.base import ProviderOutcome
from payments.services import charges
from tests.factories import make_charge
from tests.helpers import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RACERS = 6
LATE = "+243812345005"


def test_concurrent_late_successes_create_one_refund(merchant):
    charge = make_charge(merchant, phone=LATE, status="failed", failure_code="timeout")
    results = race(
        lambda: charges.charge_apply_outcome(
            charge_id=charge.id, outcome=ProviderOutcome(status="succeeded", raw={"at": "once"})
        ),
        RACERS,
    )
    assert all(isinstance(r, Charge) for r in results), results
    charge.refresh_from_db()
    assert charge.status == "failed" and charge.late_payment_at is not None
    refunds = Refund.objects.filter(charge=charge)
    assert [(r.reason, r.amount) for r in refunds] == [("late_payment", 5000)]
    assert charge.amount_refunded == 5000


def test_concurrent_late_payment_calls_create_one_refund(merchant):
    charge = make_charge(merchant, phone=LATE, status="failed", failure_code="timeout")
    results = race(lambda: charges.charge_late_payment(charge_id=charge.id, answer={}), RACERS)
    made = [r for r in results if isinstance(r, Refund)]
    assert len(made) == 1 and results.count(None) == RACERS - 1, results
    assert Refund.objects.filter(charge=charge).count() == 1
    assert Charge.objects.get(pk=charge.id).amount_refunded == 5000
