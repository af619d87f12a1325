"""The ledger's balance index gains the epoch (and, on PostgreSQL, carries the amount), so that a
balance reads the rows since its last checkpoint from the index alone; it replaces
ledger_balance_idx, of which it is an extension. On PostgreSQL both are built and dropped
CONCURRENTLY: a live ledger is not locked meanwhile, so this migration runs outside a
transaction."""

from django.db import migrations, models

from core.indexes import build_index, drop_index

TABLE = "payments_ledgerentry"
OLD = "ledger_balance_idx"
NEW = "ledger_epoch_idx"


def forwards(apps, schema_editor):
    build_index(schema_editor, TABLE, NEW, ["merchant_id", "livemode", "currency", "epoch"],
                include="amount")  # fmt: skip
    drop_index(schema_editor, OLD)


def backwards(apps, schema_editor):
    build_index(schema_editor, TABLE, OLD, ["merchant_id", "livemode", "currency"])
    drop_index(schema_editor, NEW)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("payments", "0014_balance_checkpoints"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(model_name="ledgerentry", name=OLD),
                migrations.AddIndex(
                    model_name="ledgerentry",
                    index=models.Index(
                        fields=["merchant", "livemode", "currency", "epoch"],
                        include=("amount",),
                        name=NEW,
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(forwards, backwards)],
        ),
    ]
