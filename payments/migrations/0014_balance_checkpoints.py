"""Balance checkpoints: each ledger row records the epoch (how many checkpoints its merchant, mode
and currency had) it was written in, and a checkpoint records what the rows of the epochs before
it add up to, so that a balance sums only the rows since the last one. Existing rows are of epoch
0, which the first checkpoint adds up. Adding a column with a constant default rewrites nothing on
PostgreSQL. Checkpoints are append-only, like the ledger (the same trigger on PostgreSQL)."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

APPEND_ONLY = """
CREATE TRIGGER payments_balance_checkpoint_append_only
    BEFORE UPDATE OR DELETE ON payments_balancecheckpoint
    FOR EACH ROW EXECUTE FUNCTION payments_ledger_append_only();
"""
DROP_APPEND_ONLY = """
DROP TRIGGER IF EXISTS payments_balance_checkpoint_append_only ON payments_balancecheckpoint;
"""


def append_only(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(APPEND_ONLY)


def drop_append_only(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_APPEND_ONLY)


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0013_charge_unused_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="ledgerentry",
            name="epoch",
            field=models.PositiveIntegerField(
                default=0,
                editable=False,
                help_text="How many balance checkpoints its merchant, mode and currency had when "
                "it was written: the next one adds it up.",
                verbose_name="epoch",
            ),
        ),
        migrations.CreateModel(
            name="BalanceCheckpoint",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("livemode", models.BooleanField(verbose_name="live mode")),
                (
                    "currency",
                    models.CharField(
                        choices=[("CDF", "Congolese franc"), ("USD", "US dollar")],
                        max_length=3,
                        verbose_name="currency",
                    ),
                ),
                (
                    "epoch",
                    models.PositiveIntegerField(
                        help_text="Rows of the epochs before this one are added up here.",
                        verbose_name="epoch",
                    ),
                ),
                ("total", models.BigIntegerField(verbose_name="total (minor units)")),
                ("entries", models.BigIntegerField(verbose_name="ledger rows")),
                (
                    "created_at",
                    models.DateTimeField(
                        default=django.utils.timezone.now, editable=False, verbose_name="created at"
                    ),
                ),
                (
                    "merchant",
                    models.ForeignKey(
                        db_index=False,
                        on_delete=django.db.models.deletion.PROTECT,
                        related_name="+",
                        to="payments.merchant",
                        verbose_name="merchant",
                    ),
                ),
            ],
            options={
                "verbose_name": "balance checkpoint",
                "verbose_name_plural": "balance checkpoints",
                "ordering": ["-epoch"],
                "constraints": [
                    models.UniqueConstraint(
                        fields=("merchant", "livemode", "currency", "epoch"),
                        name="balance_checkpoint_once",
                    ),
                    models.CheckConstraint(
                        condition=models.Q(("epoch__gte", 1)), name="balance_checkpoint_epoch"
                    ),
                ],
            },
        ),
        migrations.RunPython(append_only, drop_append_only),
    ]
