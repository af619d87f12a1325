"""The default webhook URL and secret now live per mode in webhooks.WebhookEndpoint."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0003_late_payments"),
        ("webhooks", "0003_webhook_endpoints"),
    ]

    operations = [
        migrations.RemoveField(model_name="merchant", name="webhook_url"),
        migrations.RemoveField(model_name="merchant", name="webhook_secret"),
    ]
