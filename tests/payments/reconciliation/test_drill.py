"""The reconciliation drill: a day of test mode activity, the sandbox operator's statement of it
(`manage.py sandboxstatement`), each kind of difference injected into that file, and
`manage.py reconcile` finding every one."""

import csv
import io
import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core.management import call_command

from payments.models import Charge, ReconciliationResult
from payments.operator_statement import COLUMNS
from payments.services import charges, payouts, refunds
from tests.factories import (
    make_charge,
    prompt_sent,
    sent_payout,
    succeeded_mobile_money_charge,
)

pytestmark = pytest.mark.django_db

DAY = datetime(2026, 12, 1, 8, tzinfo=UTC)
NETWORK = "VODACOM_MPESA"
LATE = "+243812345005"  # the sandbox customer who approves after the prompt's deadline


def sandbox_statement(tmp_path) -> list[dict]:
    path = tmp_path / "day.csv"
    call_command(
        "sandboxstatement",
        "--network",
        NETWORK,
        "--date",
        DAY.date().isoformat(),
        "--output",
        str(path),
        stderr=io.StringIO(),
    )
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames) == COLUMNS
        return list(reader)


def write(tmp_path, lines: list[dict]):
    path = tmp_path / "drill.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(lines)
    return path


def test_sandboxstatement_writes_to_standard_output(merchant):
    with time_machine.travel(DAY, tick=False):
        charge = succeeded_mobile_money_charge(merchant)
    out = io.StringIO()
    call_command("sandboxstatement", "--network", NETWORK, "--date", "2026-12-01", stdout=out)
    [line] = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert (line["merchant_reference"], line["operator_reference"]) == (
        charge.id,
        charge.provider_reference,
    )
    assert (line["type"], line["status"], line["amount"], line["fee"]) == (
        "collection",
        "succeeded",
        "10000",
        "100",
    )


def test_the_drill_finds_every_kind_of_difference(merchant, tmp_path, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3
    settings.MOBILE_MONEY_PROMPT_TIMEOUT = 300
    with time_machine.travel(DAY, tick=False):
        kept = {
            name: succeeded_mobile_money_charge(merchant, amount=amount)
            for name, amount in [
                ("matched", 10000),
                ("amount", 20000),
                ("currency", 30000),
                ("status", 40000),
                ("missing", 50000),
            ]
        }
        late = prompt_sent(make_charge(merchant, phone=LATE, amount=6000))
        refund = refunds.refund_create(charge=kept["matched"], amount=1000)
        refunds.refund_send(refund_id=refund.id)
        payout = sent_payout(merchant, amount=5000, network=NETWORK)
    # The late customer: the check at the deadline still hears nothing, the charge fails by our
    # clock; the operator's statement shows the payment made.
    with time_machine.travel(DAY + timedelta(seconds=301), tick=False):
        late = charges.charge_refresh(charge_id=late.id)
        assert payouts.payout_refresh(payout_id=payout.id).status == "succeeded"
    assert (late.status, late.failure_code) == ("failed", "timeout")

    lines = sandbox_statement(tmp_path)
    by_ours = {line["merchant_reference"]: line for line in lines}
    assert set(by_ours) == {*(c.id for c in kept.values()), late.id, refund.id, payout.id}
    by_ours[kept["amount"].id]["amount"] = "19000"
    by_ours[kept["currency"].id]["currency"] = "USD"
    by_ours[kept["status"].id]["status"] = "failed"
    lines.remove(by_ours[kept["missing"].id])
    lines.append(
        {
            **by_ours[kept["matched"].id],
            "operator_reference": "MP-NOT-OURS",
            "merchant_reference": "INV-77",
        }
    )

    out = io.StringIO()
    with time_machine.travel(DAY + timedelta(days=2), tick=False):
        with pytest.raises(SystemExit) as exited:
            call_command(
                "reconcile", "--network", NETWORK, "--mode", "test", str(write(tmp_path, lines)),
                "--json", stdout=out,
            )  # fmt: skip
    assert exited.value.code == 1
    summary = json.loads(out.getvalue())
    assert summary["results"] == {
        "matched": 3,  # a charge, its refund, the payout
        "amount_mismatch": 1,
        "currency_mismatch": 1,
        "status_mismatch": 1,
        "late_payment": 1,
        "unknown": 1,
        "missing": 1,
    }
    assert summary["lines"] == len(lines)
    outcome = dict(
        ReconciliationResult.objects.exclude(object_id="").values_list("object_id", "outcome")
    )
    assert outcome[kept["amount"].id] == "amount_mismatch"
    assert outcome[kept["missing"].id] == "missing"
    assert outcome[late.id] == "late_payment"
    late = Charge.objects.get(pk=late.id)
    assert [r.reason for r in late.refunds.all()] == ["late_payment"]
    assert summary["operator_fees"][0]["currency"] == "CDF"
