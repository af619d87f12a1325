"""The ledger's fee check and the index of its pending rows, on a table of millions of rows
without holding writes back: on PostgreSQL the check is added NOT VALID (no scan, a brief lock)
and then validated, which reads the table while charges are still written, and the index is built
CONCURRENTLY. Hence no transaction around them (atomic = False). Other databases (the embedded
SQLite) add them the ordinary way."""

import django.db.models.functions.math
from django.db import migrations, models

FEE_CHECK = models.CheckConstraint(
    condition=models.Q(
        ("fee__lte", django.db.models.functions.math.Abs("amount")),
        (
            "fee__gte",
            django.db.models.expressions.CombinedExpression(
                django.db.models.functions.math.Abs("amount"), "*", models.Value(-1)
            ),
        ),
    ),
    name="ledger_fee_within_amount",
)
PENDING_INDEX = models.Index(
    condition=models.Q(("available_on__isnull", False)),
    fields=["merchant", "livemode", "currency", "available_on"],
    include=("amount", "fee"),
    name="ledger_pending_idx",
)


def add(apps, schema_editor):
    LedgerEntry = apps.get_model("payments", "LedgerEntry")
    if schema_editor.connection.vendor != "postgresql":
        schema_editor.add_constraint(LedgerEntry, FEE_CHECK)
        schema_editor.add_index(LedgerEntry, PENDING_INDEX)
        return
    table = schema_editor.quote_name(LedgerEntry._meta.db_table)
    name = schema_editor.quote_name(FEE_CHECK.name)
    schema_editor.execute(
        f"ALTER TABLE {table} ADD CONSTRAINT {name} "
        'CHECK ("fee" <= ABS("amount") AND "fee" >= -ABS("amount")) NOT VALID'
    )
    schema_editor.execute(f"ALTER TABLE {table} VALIDATE CONSTRAINT {name}")
    schema_editor.add_index(LedgerEntry, PENDING_INDEX, concurrently=True)


def remove(apps, schema_editor):
    LedgerEntry = apps.get_model("payments", "LedgerEntry")
    schema_editor.remove_index(LedgerEntry, PENDING_INDEX)
    schema_editor.remove_constraint(LedgerEntry, FEE_CHECK)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("payments", "0025_fees"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddConstraint(model_name="ledgerentry", constraint=FEE_CHECK),
                migrations.AddIndex(model_name="ledgerentry", index=PENDING_INDEX),
            ],
            database_operations=[migrations.RunPython(add, remove)],
        ),
    ]
