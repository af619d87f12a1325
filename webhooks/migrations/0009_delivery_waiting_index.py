"""delivery_waiting_idx: a merchant's pending deliveries in a mode, by (merchant, mode, next
attempt, id). The query of the delivery a slot given back wakes, and a backlog's batch, walk it in
order and stop at the first they can take, whatever the statistics say; before, they joined the
pending deliveries to their events, and with statistics older than a backlog (every delivery
pending when they were taken) the planner read them all for each wake-up. Built CONCURRENTLY on
PostgreSQL (core/indexes.py), so deliveries go on being written meanwhile."""

from django.db import migrations, models

from core.indexes import build_index, drop_index

TABLE = "webhooks_delivery"
WAITING = "delivery_waiting_idx"


def forwards(apps, schema_editor):
    build_index(
        schema_editor, TABLE, WAITING, ["merchant_id", "livemode", "next_attempt_at", "id"],
        where="\"status\" = 'pending'",
    )  # fmt: skip


def backwards(apps, schema_editor):
    drop_index(schema_editor, WAITING)


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("webhooks", "0008_delivery_merchant_and_mode"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AddIndex(
                    model_name="delivery",
                    index=models.Index(
                        condition=models.Q(("status", "pending")),
                        fields=["merchant", "livemode", "next_attempt_at", "id"],
                        name=WAITING,
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(forwards, backwards)],
        ),
    ]
