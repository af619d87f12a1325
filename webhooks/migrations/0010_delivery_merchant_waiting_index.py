"""delivery_merchant_waiting_idx replaces delivery_waiting_idx: the same keys (merchant, mode,
next attempt, id), of the pending deliveries that carry their merchant. The claim of one delivery
by id (`… WHERE id = … AND status = 'pending' …`) implied the old index's condition, and with
statistics that had sampled no pending delivery the planner took that index for empty and read it
whole for each claim, rather than the key; it never states the new one's. The wake-up and the
backlog's batch name the merchant, so they use it as before. Built, and the old one dropped,
CONCURRENTLY on PostgreSQL (core/indexes.py): deliveries go on being written meanwhile."""

from django.db import migrations, models

from core.indexes import build_index, drop_index

TABLE = "webhooks_delivery"
COLUMNS = ["merchant_id", "livemode", "next_attempt_at", "id"]
OLD = "delivery_waiting_idx"
NEW = "delivery_merchant_waiting_idx"


def forwards(apps, schema_editor):
    build_index(
        schema_editor, TABLE, NEW, COLUMNS,
        where="\"merchant_id\" IS NOT NULL AND \"status\" = 'pending'",
    )  # fmt: skip
    drop_index(schema_editor, OLD)


def backwards(apps, schema_editor):
    build_index(schema_editor, TABLE, OLD, COLUMNS, where="\"status\" = 'pending'")
    drop_index(schema_editor, NEW)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("webhooks", "0009_delivery_waiting_index"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveIndex(model_name="delivery", name=OLD),
                migrations.AddIndex(
                    model_name="delivery",
                    index=models.Index(
                        condition=models.Q(("merchant__isnull", False), ("status", "pending")),
                        fields=["merchant", "livemode", "next_attempt_at", "id"],
                        name=NEW,
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(forwards, backwards)],
        ),
    ]
