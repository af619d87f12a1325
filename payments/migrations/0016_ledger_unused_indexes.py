"""The ledger's indexes that no query uses, dropped: every ledger row (a charge succeeding, a
refund, a payout) paid for keeping them.

- merchant_id's own index: ledger_list_idx and ledger_epoch_idx begin with merchant_id and answer
  whatever it answered (a merchant's rows, the staff's search by merchant id).
- The `varchar_pattern_ops` copies PostgreSQL gets of every indexed text column (for LIKE
  'abc%'), on id, merchant_id, charge_id, refund_id and payout_id: ids are only ever looked up
  whole.

On PostgreSQL the indexes are dropped (and, going back, built) CONCURRENTLY, as in migration 0013,
so this migration runs outside a transaction.
"""

from django.db import migrations, models

from core.indexes import build_indexes, drop_indexes

TABLE = "payments_ledgerentry"
# index name: (column, operator class)
UNUSED = {
    "payments_ledgerentry_merchant_id_bae64726": ("merchant_id", ""),
    "payments_ledgerentry_merchant_id_bae64726_like": ("merchant_id", "varchar_pattern_ops"),
    "payments_ledgerentry_id_7d9f15dd_like": ("id", "varchar_pattern_ops"),
    "payments_ledgerentry_charge_id_98586b34_like": ("charge_id", "varchar_pattern_ops"),
    "payments_ledgerentry_refund_id_7617e5a8_like": ("refund_id", "varchar_pattern_ops"),
    "payments_ledgerentry_payout_id_53c89dc5_like": ("payout_id", "varchar_pattern_ops"),
}


def drop(apps, schema_editor):
    drop_indexes(schema_editor, UNUSED)


def build(apps, schema_editor):
    build_indexes(schema_editor, TABLE, UNUSED)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("payments", "0015_ledger_epoch_index"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="ledgerentry",
                    name="merchant",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.PROTECT,
                        related_name="ledger",
                        to="payments.merchant",
                        verbose_name="merchant",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop, build)],
        ),
    ]
