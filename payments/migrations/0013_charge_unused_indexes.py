"""The charges' indexes that no query uses, dropped: every new charge paid for keeping them.

- merchant_id's own index: charge_list_idx (merchant_id, livemode, created_at, id) and the other
  list indexes begin with merchant_id and answer whatever it answered.
- The `varchar_pattern_ops` copies PostgreSQL gets of every indexed text column (for LIKE
  'abc%'), on id, merchant_id and checkout_session_id: ids are only ever looked up whole.

On PostgreSQL the indexes are dropped (and, going back, built) CONCURRENTLY: a live charges
table is not locked meanwhile, so this migration runs outside a transaction.
"""

from django.db import migrations, models

from core.indexes import build_indexes, drop_indexes

TABLE = "payments_charge"
# index name: (column, operator class)
UNUSED = {
    "payments_charge_merchant_id_444ea675": ("merchant_id", ""),
    "payments_charge_merchant_id_444ea675_like": ("merchant_id", "varchar_pattern_ops"),
    "payments_charge_id_bf174b31_like": ("id", "varchar_pattern_ops"),
    "payments_charge_checkout_session_id_38e9aba6_like": (
        "checkout_session_id",
        "varchar_pattern_ops",
    ),
}


def drop(apps, schema_editor):
    drop_indexes(schema_editor, UNUSED)


def build(apps, schema_editor):
    build_indexes(schema_editor, TABLE, UNUSED)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("payments", "0012_payout_and_ledger_verbose_names"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="charge",
                    name="merchant",
                    field=models.ForeignKey(
                        db_index=False,
                        on_delete=models.deletion.PROTECT,
                        related_name="charges",
                        to="payments.merchant",
                        verbose_name="merchant",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(drop, build)],
        ),
    ]
