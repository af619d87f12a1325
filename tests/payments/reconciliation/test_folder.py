"""The periodic job: statements dropped in RECONCILE_FOLDER are reconciled, each file once; a
file that cannot be read is set aside with its problems in words."""

import pytest
from django.utils import translation

from payments import tasks
from payments.models import Statement
from tests.factories import succeeded_mobile_money_charge
from tests.payments.reconciliation.test_reconcile import line_of, statement_file

pytestmark = pytest.mark.django_db


def test_each_file_of_the_folder_is_reconciled_once(merchant, tmp_path, settings):
    settings.RECONCILE_FOLDER = str(tmp_path)
    charge = succeeded_mobile_money_charge(merchant)
    good = statement_file(tmp_path, [line_of(charge)], name="VODACOM_MPESA-test-2026-12-01.csv")
    copy = tmp_path / "VODACOM_MPESA-test-again.csv"
    copy.write_bytes(good.read_bytes())
    (tmp_path / "VODACOM_MPESA-test-bad.csv").write_text("nonsense\n", encoding="utf-8")
    (tmp_path / "notes.csv").write_text("x\n", encoding="utf-8")

    with translation.override("en"):  # a worker speaks LANGUAGE_CODE; the test reads English
        assert tasks.statements_from_folder() == 1
    statement = Statement.objects.get()
    assert (statement.network, statement.livemode, statement.file_name) == (
        "VODACOM_MPESA",
        False,
        "VODACOM_MPESA-test-2026-12-01.csv",
    )
    assert sorted(p.name for p in (tmp_path / "done").iterdir()) == [
        "VODACOM_MPESA-test-2026-12-01.csv",
        "VODACOM_MPESA-test-again.csv",
    ]
    refused = tmp_path / "refused"
    problems = (refused / "VODACOM_MPESA-test-bad.csv.problems.txt").read_text()
    assert "first line must name the columns" in problems
    assert "network and the mode" in (refused / "notes.csv.problems.txt").read_text()
    assert not list(tmp_path.glob("*.csv"))
    # The next run finds nothing new.
    assert tasks.statements_from_folder() == 0
    assert Statement.objects.count() == 1


def test_no_folder_no_work(settings):
    settings.RECONCILE_FOLDER = ""
    assert tasks.statements_from_folder() == 0
