"""The ledger rows of the money that moved before the ledger existed, so balances are right from
the first deploy; and, on PostgreSQL, a trigger that refuses any UPDATE or DELETE of a ledger row."""

from django.db import migrations

from core import ids

BATCH = 2000

APPEND_ONLY = """
CREATE OR REPLACE FUNCTION payments_ledger_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'ledger rows are never updated or deleted';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER payments_ledger_append_only
    BEFORE UPDATE OR DELETE ON payments_ledgerentry
    FOR EACH ROW EXECUTE FUNCTION payments_ledger_append_only();
"""
DROP_APPEND_ONLY = """
DROP TRIGGER IF EXISTS payments_ledger_append_only ON payments_ledgerentry;
DROP FUNCTION IF EXISTS payments_ledger_append_only();
"""


def _rows(apps):
    Charge = apps.get_model("payments", "Charge")
    Refund = apps.get_model("payments", "Refund")
    for charge in Charge.objects.filter(status="succeeded").iterator(chunk_size=BATCH):
        yield charge, None, "charge", charge.amount, charge.finalized_at or charge.updated_at
    late = Charge.objects.filter(late_payment_at__isnull=False).exclude(status="succeeded")
    for charge in late.iterator(chunk_size=BATCH):
        yield charge, None, "late_payment", charge.amount, charge.late_payment_at
    refunds = Refund.objects.select_related("charge")
    for refund in refunds.iterator(chunk_size=BATCH):
        yield refund.charge, refund, "refund", -refund.amount, refund.created_at
        if refund.status == "failed":
            yield refund.charge, refund, "refund_failure", refund.amount, refund.updated_at


def write_history(apps, schema_editor):
    LedgerEntry = apps.get_model("payments", "LedgerEntry")
    batch = []
    for charge, refund, kind, amount, at in _rows(apps):
        batch.append(
            LedgerEntry(
                id=ids.balance_transaction_id(),
                merchant_id=charge.merchant_id,
                livemode=charge.livemode,
                currency=charge.currency,
                type=kind,
                amount=amount,
                source=refund.id if refund else charge.id,
                charge_id=charge.id,
                refund_id=refund.id if refund else None,
                created_at=at,
            )
        )
        if len(batch) >= BATCH:
            LedgerEntry.objects.bulk_create(batch)
            batch = []
    LedgerEntry.objects.bulk_create(batch)


def trigger_create(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(APPEND_ONLY)


def trigger_drop(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_APPEND_ONLY)


class Migration(migrations.Migration):
    dependencies = [("payments", "0006_payouts_and_ledger")]

    operations = [
        migrations.RunPython(write_history, migrations.RunPython.noop),
        migrations.RunPython(trigger_create, trigger_drop),
    ]
