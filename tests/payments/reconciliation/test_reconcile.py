"""Reconciliation (contract §21): `manage.py reconcile` with a generic statement against the
charges, refunds and payouts the sandbox operator handled; every result, its summary and exit
status, and the late payments it hands to the late payment path (the books are checked after
every test by the suite's own fixture)."""

import io
import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.management import CommandError, call_command
from django.utils import timezone, translation

from payments.models import (
    Charge,
    ReconciliationResult,
    Refund,
    Statement,
    StatementLine,
)
from payments.operator_statement import COLUMNS
from payments.services import charges, refunds
from tests.factories import (
    make_charge,
    sent_charge,
    sent_payout,
    succeeded_mobile_money_charge,
    timed_out_charge,
)

pytestmark = pytest.mark.django_db

NETWORK = "VODACOM_MPESA"
SILENT = "+243812345003"


def statement_file(tmp_path, lines: list[dict], name: str = "statement.csv"):
    rows = [",".join(COLUMNS)]
    for line in lines:
        values = {"fee": "0", "status": "succeeded", "type": "collection", **line}
        rows.append(",".join(str(values.get(column, "")) for column in COLUMNS))
    path = tmp_path / name
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def line_of(obj, **changes) -> dict:
    when = (obj.finalized_at or obj.created_at).astimezone(UTC)
    return {
        "operator_reference": obj.provider_reference,
        "merchant_reference": obj.id,
        "amount": obj.amount,
        "currency": obj.currency,
        "completed_at": when.isoformat().replace("+00:00", "Z"),
        **changes,
    }


def reconcile(path, *, network: str = NETWORK, mode: str = "test") -> tuple[dict, int]:
    out = io.StringIO()
    try:
        call_command(
            "reconcile", "--network", network, "--mode", mode, str(path), "--json", stdout=out
        )
    except SystemExit as exit_:
        return json.loads(out.getvalue()), exit_.code
    return json.loads(out.getvalue()), 0


def only_result() -> ReconciliationResult:
    [result] = ReconciliationResult.objects.all()
    return result


def test_a_line_that_agrees_is_matched_and_the_summary_is_the_contracts(merchant, tmp_path):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    path = statement_file(tmp_path, [line_of(charge, fee=150)])
    summary, status = reconcile(path)
    assert status == 0
    day = charge.finalized_at.astimezone(UTC).date().isoformat()
    statement = Statement.objects.get()
    assert summary == {
        "statement": statement.id,
        "network": NETWORK,
        "mode": "test",
        "period": {"from": day, "to": day},
        "lines": 1,
        "results": {
            "matched": 1,
            "amount_mismatch": 0,
            "currency_mismatch": 0,
            "status_mismatch": 0,
            "late_payment": 0,
            "unknown": 0,
            "missing": 0,
        },
        "late_payments": 0,
        "operator_fees": [{"currency": "CDF", "amount": 150}],
        "float": [{"currency": "CDF", "expected": 10000 - 150, "reported": None}],
    }
    assert statement.id.startswith("stmt_")
    assert (only_result().outcome, only_result().object_id) == ("matched", charge.id)


def test_a_line_found_by_our_reference_when_the_operators_is_empty(merchant, tmp_path):
    charge = succeeded_mobile_money_charge(merchant)
    summary, status = reconcile(statement_file(tmp_path, [line_of(charge, operator_reference="")]))
    assert (summary["results"]["matched"], status) == (1, 0)
    # The adapter's form of our id (no underscore, as Airtel's references are) is ours too.
    charge2 = succeeded_mobile_money_charge(merchant)
    path = statement_file(
        tmp_path,
        [line_of(charge2, operator_reference="", merchant_reference=charge2.id.replace("_", ""))],
        name="second.csv",
    )
    summary, status = reconcile(path)
    assert (summary["results"]["matched"], status) == (1, 0)


def test_another_amount_or_currency_is_a_difference_left_open(merchant, tmp_path):
    first = succeeded_mobile_money_charge(merchant, amount=10000)
    second = succeeded_mobile_money_charge(merchant, amount=20000)
    path = statement_file(tmp_path, [line_of(first, amount=9000), line_of(second, currency="USD")])
    summary, status = reconcile(path)
    assert summary["results"]["amount_mismatch"] == 1
    assert summary["results"]["currency_mismatch"] == 1
    assert status == 1
    amount = ReconciliationResult.objects.get(outcome="amount_mismatch")
    assert amount.object_id == first.id and amount.is_open
    assert "9" in amount.detail and "10" in amount.detail
    # Nothing of ours changed.
    first.refresh_from_db()
    assert (first.status, first.amount_refunded) == ("succeeded", 0)


def test_our_success_the_operator_reports_failed_is_flagged_with_the_balance(merchant, tmp_path):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    summary, status = reconcile(statement_file(tmp_path, [line_of(charge, status="failed")]))
    assert (summary["results"]["status_mismatch"], status) == (1, 1)
    result = only_result()
    assert result.needs_staff and result.is_open
    from payments.selectors import balance_get

    assert result.available_balance == balance_get(merchant=merchant, livemode=False)["CDF"]
    assert result.available_balance is not None
    charge.refresh_from_db()
    assert charge.status == "succeeded"  # nothing changed silently


def test_an_operator_success_on_a_charge_we_failed_is_given_back_as_a_late_payment(
    merchant, tmp_path, settings
):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3
    settings.MOBILE_MONEY_PROMPT_TIMEOUT = 300
    # A number the sandbox operator never answers for: the charge fails by our clock.
    charge = timed_out_charge(merchant, phone=SILENT, at=timezone.now() - timedelta(hours=2))
    path = statement_file(tmp_path, [line_of(charge, operator_reference="MP-LATE-1")])
    summary, status = reconcile(path)
    assert summary["results"]["late_payment"] == 1 and summary["late_payments"] == 1
    assert status == 0  # closed by that step
    charge.refresh_from_db()
    [refund] = charge.refunds.all()
    assert (refund.reason, refund.amount) == ("late_payment", charge.amount)
    assert charge.late_payment_at is not None and charge.provider_reference == "MP-LATE-1"
    # The status checks finding it too give nothing back twice.
    charges.charge_payment_confirmed(charge_id=charge.id, reference="MP-LATE-1", answer={})
    assert Refund.objects.filter(charge=charge).count() == 1
    call_command("checkledger", stdout=io.StringIO())  # raises on any disagreement


def test_a_second_payment_of_a_succeeded_charge_is_given_back(merchant, tmp_path):
    charge = succeeded_mobile_money_charge(merchant)
    path = statement_file(
        tmp_path, [line_of(charge), line_of(charge, operator_reference="MP-SECOND")]
    )
    summary, status = reconcile(path)
    assert summary["results"]["matched"] == 1 and summary["late_payments"] == 1
    assert status == 0
    [refund] = Refund.objects.filter(charge=charge)
    assert (refund.reason, refund.payment_reference) == ("late_payment", "MP-SECOND")
    charge.refresh_from_db()
    assert charge.amount_refunded == 0
    call_command("checkledger", stdout=io.StringIO())


def test_a_line_of_nothing_of_ours_is_unknown(merchant, tmp_path):
    line = {
        "operator_reference": "MP-STRANGER",
        "merchant_reference": "ch_" + "x" * 24,
        "amount": 500,
        "currency": "CDF",
        "completed_at": "2026-12-01T10:00:00Z",
    }
    summary, status = reconcile(statement_file(tmp_path, [line]))
    assert (summary["results"]["unknown"], status) == (1, 1)
    # Another network's charge is not ours on this network's statement.
    charge = succeeded_mobile_money_charge(merchant)
    summary, _ = reconcile(
        statement_file(tmp_path, [line_of(charge)], name="b.csv"), network="ORANGE_MONEY"
    )
    assert summary["results"]["unknown"] == 1


def test_our_objects_with_no_line_are_missing_after_the_grace(merchant, tmp_path, settings):
    day = datetime(2026, 12, 1, 9, tzinfo=UTC)
    with time_machine.travel(day, tick=False):
        named = succeeded_mobile_money_charge(merchant)
    with time_machine.travel(day + timedelta(hours=3), tick=False):
        unnamed = succeeded_mobile_money_charge(merchant, amount=7000)
    with time_machine.travel(day + timedelta(hours=23), tick=False):
        too_recent = succeeded_mobile_money_charge(merchant, amount=3000)
        never_sent = make_charge(merchant, status="failed")
    settings.RECONCILE_GRACE = 86400
    path = statement_file(tmp_path, [line_of(named)])
    with time_machine.travel(day + timedelta(days=1, hours=12), tick=False):
        summary, status = reconcile(path)
    assert summary["period"] == {"from": "2026-12-01", "to": "2026-12-01"}
    assert (summary["results"]["missing"], status) == (1, 1)
    missing = ReconciliationResult.objects.get(outcome="missing")
    assert missing.object_id == unnamed.id and missing.needs_staff
    assert missing.available_balance is not None
    assert not ReconciliationResult.objects.filter(object_id__in=[too_recent.id, never_sent.id])


def test_refunds_and_payouts_are_matched_and_a_payout_we_failed_that_was_paid_is_flagged(
    merchant, tmp_path
):
    charge = succeeded_mobile_money_charge(merchant, amount=50000)
    refund = refunds.refund_create(charge=charge, amount=1000)
    refunds.refund_send(refund_id=refund.id)
    refund = Refund.objects.get(pk=refund.id)
    payout = sent_payout(merchant, amount=5000)
    from payments.providers.base import ProviderOutcome
    from payments.services import payouts

    payout = payouts.payout_apply_outcome(
        payout_id=payout.id,
        outcome=ProviderOutcome(status="failed", failure_code="provider_error"),
    )
    lines = [
        line_of(charge),
        line_of(refund, type="reversal", status=refund.status),
        line_of(payout, type="disbursement", operator_reference="MP-PO-1"),
    ]
    summary, status = reconcile(statement_file(tmp_path, lines))
    assert summary["results"]["matched"] == 2, list(ReconciliationResult.objects.values())
    assert summary["results"]["status_mismatch"] == 1
    flagged = ReconciliationResult.objects.get(outcome="status_mismatch")
    assert flagged.object_id == payout.id and flagged.needs_staff
    assert status == 1


def test_the_same_file_twice_changes_nothing(merchant, tmp_path):
    charge = succeeded_mobile_money_charge(merchant)
    path = statement_file(tmp_path, [line_of(charge, status="failed")])
    first, _ = reconcile(path)
    again, status = reconcile(path)
    assert again == first and status == 1
    assert Statement.objects.count() == 1 and ReconciliationResult.objects.count() == 1


def test_a_line_of_an_earlier_statement_gets_no_result_in_a_later_one(merchant, tmp_path):
    one = succeeded_mobile_money_charge(merchant)
    two = succeeded_mobile_money_charge(merchant)
    reconcile(statement_file(tmp_path, [line_of(one)], name="a.csv"))
    summary, status = reconcile(
        statement_file(tmp_path, [line_of(one), line_of(two)], name="b.csv")
    )
    assert summary["lines"] == 2
    assert summary["results"]["matched"] == 1 and status == 0
    later = Statement.objects.get(pk=summary["statement"])
    assert (
        later.lines.filter(counted_before=True).get().operator_reference == one.provider_reference
    )
    assert ReconciliationResult.objects.filter(object_id=one.id).count() == 1


@pytest.mark.parametrize(
    ("content", "said"),
    [
        (b"a,b\n1,2\n", "The first line must name the columns"),
        (
            ",".join(COLUMNS).encode()
            + b"\nX,ch_1,collection,12a,CDF,succeeded,2026-12-01T10:00:00Z,0\n",
            "12a",
        ),
        (
            ",".join(COLUMNS).encode()
            + b"\nX,ch_1,collection,100,CDF,done,2026-12-01T10:00:00Z,0\n",
            "done",
        ),
        (
            ",".join(COLUMNS).encode() + b"\nX,ch_1,collection,100,EUR,failed,yesterday,0\n",
            "yesterday",
        ),
        (",".join(COLUMNS).encode() + b'\nX,"ch_1,collection\n', "Line"),
        (",".join(COLUMNS).encode() + b"\nX,ch_1,collection,100\n", "columns instead of"),
        (b"\xff\xfe", "UTF-8"),
    ],
)
def test_a_malformed_file_is_refused_whole_and_nothing_recorded(merchant, tmp_path, content, said):
    charge = succeeded_mobile_money_charge(merchant)
    path = tmp_path / "bad.csv"
    path.write_bytes(content)
    with pytest.raises(CommandError) as refused, translation.override("en"):
        call_command("reconcile", "--network", NETWORK, "--mode", "test", str(path))
    assert said in str(refused.value)
    assert "nothing was recorded" in str(refused.value)
    assert not Statement.objects.exists() and not StatementLine.objects.exists()
    assert Charge.objects.get(pk=charge.id).status == "succeeded"


def test_the_problems_are_said_in_french_too(merchant, tmp_path):
    path = tmp_path / "bad.csv"
    path.write_bytes(
        ",".join(COLUMNS).encode() + b"\nX,ch_1,collection,12a,CDF,succeeded,2026-12-01,0\n"
    )
    with pytest.raises(CommandError) as refused, translation.override("fr"):
        call_command("reconcile", "--network", NETWORK, "--mode", "test", str(path))
    assert "Ligne 2 : le montant « 12a » n’est pas un nombre entier positif." in str(refused.value)


def test_the_card_providers_payment_batch_detail_report_is_read(merchant, tmp_path):
    """The report as CyberSource's Reporting User Guide shows it: a title line, its columns,
    signed amounts in dollars; ics_bill a capture, ics_credit a refund."""
    from tests.factories import succeeded_card_charge

    charge = succeeded_card_charge(merchant, amount=1999)
    day = charge.finalized_at.astimezone(UTC).date().isoformat()
    report = (
        f"Payment Batch Detail Report,1.0,{day} to {day},,,,,,,\r\n"
        "batch_id,merchant_id,batch_date,request_id,merchant_ref_number,trans_ref_no,"
        "payment_method,currency,amount,transaction_type\r\n"
        f"123456,congopay,{day},{charge.provider_reference},{charge.id},5652882910,Visa,USD,"
        "19.99,ics_bill\r\n"
        f"123456,congopay,{day},0004173790000167905139,re_{'z' * 24},5629152830,Visa,USD,"
        "-5.00,ics_credit\r\n"
    )
    path = tmp_path / "pbdr.csv"
    path.write_text(report, encoding="utf-8")
    summary, status = reconcile(path, network="CARD")
    assert summary["results"]["matched"] == 1 and summary["results"]["unknown"] == 1
    assert summary["period"] == {"from": day, "to": day} and status == 1
    statement = Statement.objects.get()
    assert statement.file_format == "cybersource_pbdr"
    assert list(statement.lines.values_list("number", "type", "amount")) == [
        (3, "collection", 1999),
        (4, "reversal", 500),
    ]
    bad = tmp_path / "bad.csv"
    bad.write_text(report.replace("19.99", "19,99"), encoding="utf-8")
    with pytest.raises(CommandError) as refused, translation.override("en"):
        call_command("reconcile", "--network", "CARD", "--mode", "test", str(bad))
    assert "Line 3" in str(refused.value)


def test_an_operator_success_on_a_charge_we_hold_pending_is_applied_as_the_status_check_would(
    merchant, tmp_path, settings
):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3
    charge = sent_charge(merchant, phone=SILENT)
    assert charge.status == "pending"
    path = statement_file(tmp_path, [line_of(charge, operator_reference="MP-PAID-1")])
    summary, status = reconcile(path)
    assert summary["late_payments"] == 1 and status == 0
    charge.refresh_from_db()
    # Still within its time: accepted, as the operator's success through a status check would be.
    assert (charge.status, charge.provider_reference) == ("succeeded", "MP-PAID-1")
    assert not charge.refunds.exists()
