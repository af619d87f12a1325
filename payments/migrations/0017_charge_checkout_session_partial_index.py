"""A charge's checkout session is looked up through an index of the charges that have one: the
charges made through the API (most of them) have none, and every one of them paid for a NULL
entry in the foreign key's index of all charges (one index write per new charge, and an entry per
charge kept for ever). A lookup by session (`checkout_session_id = …`, the foreign key's checks
included) implies the column is not NULL, so it uses the partial index as it used the whole one.

On PostgreSQL the partial index is built, and the whole one dropped, CONCURRENTLY (as in
migrations 0013 and 0016), so this migration runs outside a transaction; going back does the
opposite.
"""

from django.db import migrations, models

from core.indexes import build_index, drop_index

TABLE = "payments_charge"
WHOLE = "payments_charge_checkout_session_id_38e9aba6"
PARTIAL = "charge_checkout_session_idx"


def forwards(apps, schema_editor):
    build_index(
        schema_editor, TABLE, PARTIAL, ["checkout_session_id"],
        where='"checkout_session_id" IS NOT NULL',
    )  # fmt: skip
    drop_index(schema_editor, WHOLE)


def backwards(apps, schema_editor):
    build_index(schema_editor, TABLE, WHOLE, ["checkout_session_id"])
    drop_index(schema_editor, PARTIAL)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("payments", "0016_ledger_unused_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="charge",
                    name="checkout_session",
                    field=models.ForeignKey(
                        blank=True,
                        db_index=False,
                        null=True,
                        on_delete=models.deletion.PROTECT,
                        related_name="charges",
                        to="checkout.checkoutsession",
                        verbose_name="checkout session",
                    ),
                ),
                migrations.AddIndex(
                    model_name="charge",
                    index=models.Index(
                        condition=models.Q(checkout_session__isnull=False),
                        fields=["checkout_session"],
                        name="charge_checkout_session_idx",
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(forwards, backwards)],
        ),
    ]
