"""SandboxTransaction now belongs to the sandbox app (sandbox/migrations/0001_initial.py). Only
the payments app's record of the model is dropped: its table stays, owned by the sandbox app."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("payments", "0004_merchant_webhook_fields_moved"),
        ("sandbox", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="SandboxTransaction")],
            database_operations=[],
        ),
    ]
