"""The partial indexes of pending charges, refunds and payouts name a condition that the
statements taking one of them by id never state.

ANALYZE samples a table, and on a table of many settled payments the sample most often holds no
pending one: the planner then takes a partial index `WHERE status = 'pending'` for empty, and a
statement by id that says `status = 'pending'` too (the prompt's claim, a refund's or payout's
one call to its provider) was planned on it as the cheapest path, reading every pending entry to
find its own row: a millisecond at 1,500 pending charges, far more on the day a backlog builds.

- `charge_check_due_idx`, `refund_check_due_idx`, `payout_check_due_idx` replace the
  `…_pending_check_idx`: the same key (next check), of the pending rows that have a check to
  come. The sweeps' `next_check_at <= now` implies it; no statement by id states it.
- `charge_unsent_idx`: the pending mobile money charges whose prompt is not sent, oldest first,
  for the unsent-prompt sweep (it read the old index before). The claim of a prompt does not
  name the rail.

Built, and the old ones dropped, CONCURRENTLY on PostgreSQL (core/indexes.py), the new before the
old so the sweeps always have one; this migration runs outside a transaction. Going back does the
opposite."""

from django.db import migrations, models

from core.indexes import build_index, drop_index

PENDING = "\"status\" = 'pending'"
DUE = '"next_check_at" IS NOT NULL AND ' + PENDING
CHECKS = {  # table: (old index, new index)
    "payments_charge": ("charge_pending_check_idx", "charge_check_due_idx"),
    "payments_refund": ("refund_pending_check_idx", "refund_check_due_idx"),
    "payments_payout": ("payout_pending_check_idx", "payout_check_due_idx"),
}
UNSENT = "charge_unsent_idx"
UNSENT_WHERE = (
    "\"payment_method\" = 'mobile_money' AND \"provider_requested_at\" IS NULL AND " + PENDING
)


def forwards(apps, schema_editor):
    for table, (old, new) in CHECKS.items():
        build_index(schema_editor, table, new, ["next_check_at"], where=DUE)
    build_index(schema_editor, "payments_charge", UNSENT, ["created_at"], where=UNSENT_WHERE)
    for old, _ in CHECKS.values():
        drop_index(schema_editor, old)


def backwards(apps, schema_editor):
    for table, (old, new) in CHECKS.items():
        build_index(schema_editor, table, old, ["next_check_at"], where=PENDING)
    for _, new in CHECKS.values():
        drop_index(schema_editor, new)
    drop_index(schema_editor, UNSENT)


def _check_due(model: str) -> list:
    return [
        migrations.RemoveIndex(model_name=model, name=f"{model}_pending_check_idx"),
        migrations.AddIndex(
            model_name=model,
            index=models.Index(
                condition=models.Q(("next_check_at__isnull", False), ("status", "pending")),
                fields=["next_check_at"],
                name=f"{model}_check_due_idx",
            ),
        ),
    ]


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("payments", "0019_charge_search_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                *_check_due("charge"),
                *_check_due("refund"),
                *_check_due("payout"),
                migrations.AddIndex(
                    model_name="charge",
                    index=models.Index(
                        condition=models.Q(
                            ("payment_method", "mobile_money"),
                            ("provider_requested_at__isnull", True),
                            ("status", "pending"),
                        ),
                        fields=["created_at"],
                        name=UNSENT,
                    ),
                ),
            ],
            database_operations=[migrations.RunPython(forwards, backwards)],
        ),
    ]
