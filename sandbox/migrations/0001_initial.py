"""SandboxTransaction moves here from the payments app. Its table stays where it is (db_table):
only Django's record of which app owns the model changes, so no row is touched."""

import django.utils.timezone
import core.ids
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("payments", "0004_merchant_webhook_fields_moved"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="SandboxTransaction",
                    fields=[
                        ("id", models.CharField(default=core.ids.sandbox_id, editable=False, max_length=40, primary_key=True, serialize=False)),
                        ("kind", models.CharField(choices=[("mobile_money", "Mobile Money"), ("card", "Card"), ("refund", "Refund")], max_length=20)),
                        ("reference", models.CharField(db_index=True, help_text="Our charge or refund id.", max_length=64)),
                        ("attempt", models.CharField(blank=True, default="", max_length=64)),
                        ("amount", models.BigIntegerField()),
                        ("currency", models.CharField(max_length=3)),
                        ("phone", models.CharField(blank=True, default="", max_length=20)),
                        ("network", models.CharField(blank=True, default="", max_length=20)),
                        ("decision", models.CharField(blank=True, default="", max_length=10)),
                        ("reason_code", models.CharField(blank=True, default="", max_length=10)),
                        ("request_count", models.PositiveIntegerField(default=1)),
                        ("request", models.JSONField(blank=True, default=dict)),
                        ("created_at", models.DateTimeField(default=django.utils.timezone.now)),
                        ("answered_at", models.DateTimeField(blank=True, null=True)),
                    ],
                    options={
                        "db_table": "payments_sandboxtransaction",
                        "constraints": [models.UniqueConstraint(condition=models.Q(("attempt", ""), _negated=True), fields=("kind", "attempt"), name="sandbox_attempt_unique")],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
