"""Issuing an API key is a permission of its own (payments.issue_apikey): a key moves the
merchant's money, and neither seeing merchants nor changing them should give one. Django creates
the permission after the migration; no staff member holds it until given it."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0017_charge_checkout_session_partial_index"),
    ]

    operations = [
        migrations.AlterModelOptions(
            name="apikey",
            options={
                "ordering": ["-created_at"],
                "permissions": [("issue_apikey", "Can issue API keys")],
                "verbose_name": "API key",
                "verbose_name_plural": "API keys",
            },
        ),
    ]
