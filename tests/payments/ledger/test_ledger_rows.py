"""Every movement of money writes exactly its ledger rows, in the transaction of the state change
that causes it, once: a repeated answer, a replayed request or a second callback writes nothing
more. Rows are never updated or deleted."""

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.db.utils import DatabaseError, IntegrityError

from payments import services
from payments.models import LedgerEntry
from payments.providers.base import ProviderOutcome
from payments.services.ledger import ledger_check, ledger_record
from tests.factories import succeeded_card_charge, succeeded_mobile_money_charge

pytestmark = pytest.mark.django_db

PHONE = "+243812345678"


def rows(source_id: str) -> list[tuple[str, int]]:
    return list(
        LedgerEntry.objects.filter(source=source_id)
        .order_by("created_at", "id")
        .values_list("type", "amount")
    )


def test_a_succeeded_charge_writes_one_row_and_a_repeated_answer_none(merchant):
    charge = succeeded_card_charge(merchant, amount=1999)
    assert rows(charge.id) == [("charge", 1999)]
    entry = LedgerEntry.objects.get(source=charge.id)
    assert (entry.merchant_id, entry.livemode, entry.currency) == (merchant.id, False, "USD")
    assert entry.charge_id == charge.id and entry.id.startswith("txn_") and len(entry.id) == 28
    services.charge_apply_outcome(charge_id=charge.id, outcome=ProviderOutcome(status="succeeded"))
    assert rows(charge.id) == [("charge", 1999)]
    assert ledger_check() == []


def test_failed_and_declined_charges_write_nothing(merchant):
    for status in ("failed", "declined"):
        charge = services.charge_create(
            merchant=merchant,
            livemode=False,
            amount=5000,
            currency="CDF",
            phone=PHONE,
            network="VODACOM_MPESA",
        )
        services.charge_apply_outcome(
            charge_id=charge.id,
            outcome=ProviderOutcome(status=status, failure_code="provider_error"),
        )
        assert rows(charge.id) == []
    assert LedgerEntry.objects.count() == 0


def test_a_refund_writes_its_row_when_reserved_and_gives_it_back_when_it_fails(merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    ok = services.refund_create(charge=charge, amount=3000)
    assert ok.status == "succeeded"
    assert rows(ok.id) == [("refund", -3000)]
    failed = services.refund_create(charge=charge, amount=2000, metadata={"sandbox_refund": "fail"})
    assert failed.status == "failed"
    assert rows(failed.id) == [("refund", -2000), ("refund_failure", 2000)]
    # The failed refund's answer again: nothing more.
    services.refund_apply_outcome(refund_id=failed.id, outcome=ProviderOutcome(status="failed"))
    assert rows(failed.id) == [("refund", -2000), ("refund_failure", 2000)]
    balance = sum(LedgerEntry.objects.values_list("amount", flat=True))
    assert balance == 10000 - 3000
    assert ledger_check() == []


def test_a_pending_refund_that_later_succeeds_writes_only_its_reservation(merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    refund = services.refund_create(
        charge=charge, amount=4000, metadata={"sandbox_refund": "pending"}
    )
    assert refund.status == "pending"
    assert rows(refund.id) == [("refund", -4000)]
    services.refund_apply_outcome(refund_id=refund.id, outcome=ProviderOutcome(status="succeeded"))
    assert rows(refund.id) == [("refund", -4000)]


def test_a_late_payment_writes_two_rows_that_cancel_out(merchant):
    charge = services.charge_create(
        merchant=merchant,
        livemode=False,
        amount=7000,
        currency="CDF",
        phone=PHONE,
        network="AIRTEL_MONEY",
    )
    services.charge_apply_outcome(
        charge_id=charge.id,
        outcome=ProviderOutcome(status="failed", failure_code="timeout"),
    )
    services.charge_apply_outcome(charge_id=charge.id, outcome=ProviderOutcome(status="succeeded"))
    charge.refresh_from_db()
    assert charge.status == "failed" and charge.late_payment_at is not None
    refund = charge.refunds.get()
    assert rows(charge.id) == [("late_payment", 7000)]
    assert rows(refund.id) == [("refund", -7000)]
    # The operator says it again: still one late payment, one refund.
    services.charge_apply_outcome(charge_id=charge.id, outcome=ProviderOutcome(status="succeeded"))
    assert LedgerEntry.objects.count() == 2
    assert sum(LedgerEntry.objects.values_list("amount", flat=True)) == 0
    assert ledger_check() == []


def test_an_idempotent_replay_writes_no_second_row(api, merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    headers = {"HTTP_IDEMPOTENCY_KEY": "refund-once"}
    first = api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 1000}, format="json", **headers)
    again = api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 1000}, format="json", **headers)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["id"] == first.json()["id"]
    assert LedgerEntry.objects.filter(type="refund").count() == 1


def test_rows_are_never_updated_or_deleted(merchant):
    charge = succeeded_card_charge(merchant)
    entry = LedgerEntry.objects.get(source=charge.id)
    entry.amount = 1
    with pytest.raises(TypeError):
        entry.save()
    with pytest.raises(TypeError):
        entry.delete()
    with pytest.raises(TypeError):
        LedgerEntry.objects.filter(pk=entry.pk).update(amount=1)
    with pytest.raises(TypeError):
        LedgerEntry.objects.filter(pk=entry.pk).delete()
    assert LedgerEntry.objects.get(pk=entry.pk).amount == charge.amount


@pytest.mark.django_db(transaction=True)
def test_a_row_is_written_only_inside_a_state_change(merchant):
    charge = succeeded_card_charge(merchant)
    with pytest.raises(RuntimeError):
        ledger_record(type="charge", source=charge)


def test_the_same_movement_cannot_be_written_twice(merchant):
    charge = succeeded_card_charge(merchant)
    with pytest.raises(IntegrityError), transaction.atomic():
        ledger_record(type="charge", source=charge)


@pytest.mark.postgres
def test_postgresql_refuses_updates_and_deletes_of_ledger_rows(merchant):
    charge = succeeded_card_charge(merchant)
    entry = LedgerEntry.objects.get(source=charge.id)
    for sql in (
        "UPDATE payments_ledgerentry SET amount = 1 WHERE id = %s",
        "DELETE FROM payments_ledgerentry WHERE id = %s",
    ):
        with pytest.raises(DatabaseError, match="never updated or deleted"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(sql, [entry.id])
    assert LedgerEntry.objects.get(pk=entry.pk).amount == charge.amount


@pytest.mark.books_unchecked  # it writes a row no state change called for, on purpose
def test_the_check_finds_a_ledger_that_disagrees_with_its_sources(merchant, capsys):
    charge = succeeded_card_charge(merchant, amount=1999)
    call_command("checkledger")
    assert "agrees" in capsys.readouterr().out
    failed = services.charge_create(
        merchant=merchant,
        livemode=False,
        amount=5000,
        currency="CDF",
        phone=PHONE,
        network="VODACOM_MPESA",
    )
    with transaction.atomic():  # a row no state change called for
        ledger_record(type="charge", source=failed)
    problems = ledger_check()
    assert [(p.merchant_id, p.currency) for p in problems] == [(merchant.id, "CDF")] * 2
    assert "charge: expected (0, 0, 0)" in problems[0].problem
    with pytest.raises(CommandError, match="2 disagreement"):
        call_command("checkledger")
    assert charge.id  # the USD books stayed right
    assert not [p for p in problems if p.currency == "USD"]


@pytest.mark.postgres
def test_ledger_rows_keep_only_the_indexes_a_query_uses():
    """Every ledger row writes each index of the table: merchant_id's own index (a prefix of the
    list and balance indexes) and the LIKE copies of the id columns are gone (migration 0016)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'payments_ledgerentry'")
        names = {name for (name,) in cursor.fetchall()}
    assert names == {
        "payments_ledgerentry_pkey",
        "ledger_list_idx",  # a merchant's rows, newest first
        "ledger_epoch_idx",  # a balance: the rows since its last checkpoint
        "ledger_pending_idx",  # a balance: the rows not yet available, whatever their epoch
        "ledger_once_per_source",
        "payments_ledgerentry_charge_id_98586b34",  # a charge's rows
        "payments_ledgerentry_refund_id_7617e5a8",  # a refund's rows
        "payments_ledgerentry_payout_id_53c89dc5",  # a payout's rows
    }
