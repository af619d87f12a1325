"""A late payment found by a statement line and by a status check at the same moment is given
back once (the charge's row lock orders them); two overlapping statements loaded at the same
moment count each line once and find each missing object once."""

from datetime import timedelta

import pytest
from django.utils import timezone

from payments.models import ReconciliationResult, Refund, Statement
from payments.services import charges, reconciliation
from tests.factories import succeeded_mobile_money_charge, timed_out_charge
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


def test_two_overlapping_statements_loaded_at_once_count_each_line_once(
    merchant, tmp_path, settings
):
    settings.RECONCILE_GRACE = 0
    both = succeeded_mobile_money_charge(merchant)
    unnamed = succeeded_mobile_money_charge(merchant, amount=7000)
    files = iter(
        [
            statement_file(tmp_path, [line_of(both)], name="a.csv").read_bytes(),
            statement_file(tmp_path, [line_of(both), line_of(both, operator_reference="X-1")],
                           name="b.csv").read_bytes(),
        ]
    )  # fmt: skip

    def one():
        return reconciliation.statement_load(
            network="VODACOM_MPESA", livemode=False, content=next(files)
        )

    outcomes = race(one, count=2)
    assert not [o for o in outcomes if isinstance(o, Exception)], outcomes
    assert Statement.objects.count() == 2
    assert ReconciliationResult.objects.filter(object_id=both.id, line__isnull=False).count() == 2
    assert ReconciliationResult.objects.filter(outcome="matched").count() == 1
    assert ReconciliationResult.objects.filter(object_id=unnamed.id).count() == 1
