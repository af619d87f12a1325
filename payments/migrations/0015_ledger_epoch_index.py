"""The ledger's balance index gains the epoch (and, on PostgreSQL, carries the amount), so that a
balance reads the rows since its last checkpoint from the index alone; it replaces
ledger_balance_idx, of which it is an extension. On PostgreSQL both are built and dropped
CONCURRENTLY: a live ledger is not locked meanwhile, so this migration runs outside a
transaction."""

from django.db import migrations, models

TABLE = "payments_ledgerentry"
OLD = "ledger_balance_idx"
NEW = "ledger_epoch_idx"


def _concurrently(schema_editor) -> str:
    return " CONCURRENTLY" if schema_editor.connection.vendor == "postgresql" else ""


def _build(schema_editor, name: str, columns: list[str], include: str = "") -> None:
    quote, concurrently = schema_editor.quote_name, _concurrently(schema_editor)
    cover = f" INCLUDE ({quote(include)})" if include and concurrently else ""
    schema_editor.execute(
        f"CREATE INDEX{concurrently} IF NOT EXISTS {quote(name)} ON {quote(TABLE)} "
        f"({', '.join(quote(column) for column in columns)}){cover}"
    )


def _drop(schema_editor, name: str) -> None:
    quote, concurrently = schema_editor.quote_name, _concurrently(schema_editor)
    schema_editor.execute(f"DROP INDEX{concurrently} IF EXISTS {quote(name)}")


def forwards(apps, schema_editor):
    _build(schema_editor, NEW, ["merchant_id", "livemode", "currency", "epoch"], "amount")
    _drop(schema_editor, OLD)


def backwards(apps, schema_editor):
    _build(schema_editor, OLD, ["merchant_id", "livemode", "currency"])
    _drop(schema_editor, NEW)


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
