"""Each mode gets its own default webhook URL and signing secret. An existing merchant keeps its
current secret for live mode (its receivers already verify live events with it), gets a new secret
for test mode, and its current URL becomes the default URL of both modes."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

import payments.models


def split_per_mode(apps, schema_editor):
    Merchant = apps.get_model("payments", "Merchant")
    WebhookEndpoint = apps.get_model("webhooks", "WebhookEndpoint")
    for merchant in Merchant.objects.all().iterator():
        WebhookEndpoint.objects.create(
            merchant=merchant,
            livemode=True,
            url=merchant.webhook_url,
            secret=merchant.webhook_secret or payments.models.new_webhook_secret(),
        )
        WebhookEndpoint.objects.create(
            merchant=merchant,
            livemode=False,
            url=merchant.webhook_url,
            secret=payments.models.new_webhook_secret(),
        )


def join_modes(apps, schema_editor):
    Merchant = apps.get_model("payments", "Merchant")
    WebhookEndpoint = apps.get_model("webhooks", "WebhookEndpoint")
    for endpoint in WebhookEndpoint.objects.filter(livemode=True).iterator():
        Merchant.objects.filter(pk=endpoint.merchant_id).update(
            webhook_url=endpoint.url, webhook_secret=endpoint.secret
        )


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0003_late_payments"),
        ("webhooks", "0002_webhooks_deliveries"),
    ]

    operations = [
        migrations.CreateModel(
            name="WebhookEndpoint",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("livemode", models.BooleanField()),
                ("url", models.URLField(blank=True, default="", help_text="Default URL.", max_length=2000)),
                ("secret", models.CharField(default=payments.models.new_webhook_secret, max_length=100)),
                ("previous_secret", models.CharField(blank=True, default="", max_length=100)),
                ("previous_secret_expires_at", models.DateTimeField(blank=True, null=True)),
                ("updated_at", models.DateTimeField(default=django.utils.timezone.now)),
                ("merchant", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="webhook_endpoints", to="payments.merchant")),
            ],
            options={"ordering": ["livemode"]},
        ),
        migrations.AddConstraint(
            model_name="webhookendpoint",
            constraint=models.UniqueConstraint(fields=("merchant", "livemode"), name="webhook_endpoint_per_mode"),
        ),
        migrations.RunPython(split_per_mode, join_modes),
    ]
