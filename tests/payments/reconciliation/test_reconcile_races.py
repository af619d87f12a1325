"""A late payment found by a statement line and by a status check at the same moment is given
back once (the charge's row lock orders them)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from payments.models import Refund, Statement
from payments.services import charges, reconciliation
from tests.factories import timed_out_charge
from tests.helpers import race
from tests.payments.reconciliation.test_reconcile import SILENT, line_of, statement_file

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_a_statement_and_a_status_check_finding_the_same_late_payment(merchant, tmp_path):
    charge = timed_out_charge(merchant, phone=SILENT, at=timezone.now() - timedelta(hours=2))
    content = statement_file(
        tmp_path, [line_of(charge, operator_reference="MP-LATE-9")]
    ).read_bytes()
    racers = iter(["statement", "status check"])

    def one():
        if next(racers) == "statement":
            return reconciliation.statement_load(
                network="VODACOM_MPESA", livemode=False, content=content
            )
        return charges.charge_payment_confirmed(
            charge_id=charge.id, reference="MP-LATE-9", answer={"status": "TS"}
        )

    outcomes = race(one, count=2)
    assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
    [refund] = Refund.objects.filter(charge=charge)
    assert (refund.reason, refund.amount) == ("late_payment", charge.amount)
    statement = Statement.objects.get()
    assert statement.results.get().outcome == "late_payment"
    assert not reconciliation.open_results(statement).exists()
