"""The owner's "payouts by API" setting (on), its two audit actions, and the member who made each
API key, read back from the audit log for the keys made in the dashboard before keys recorded
it (api_key.created, the key's prefix, its merchant and mode): an owner sees who made each live
key, and a payout batch made with one is not that member's to approve alone. Keys made by staff
or a command have no such row and stay without one. Going back forgets nothing the audit log
does not keep."""

from django.conf import settings
from django.db import migrations, models


def key_creators(apps, schema_editor):
    AuditEntry = apps.get_model("dashboard", "AuditEntry")
    ApiKey = apps.get_model("payments", "ApiKey")
    User = apps.get_model(*settings.AUTH_USER_MODEL.split("."))
    made = AuditEntry.objects.filter(
        action="api_key.created", user__isnull=False, merchant__isnull=False
    ).order_by("created_at", "id")
    for entry in made.values("user_id", "merchant_id", "mode", "object_id").iterator():
        if not User.objects.filter(pk=entry["user_id"]).exists():
            continue  # a user deleted since (the log keeps no link to them)
        ApiKey.objects.filter(
            merchant_id=entry["merchant_id"],
            mode=entry["mode"],
            prefix=entry["object_id"],
            created_by__isnull=True,
        ).update(created_by_id=entry["user_id"])


class Migration(migrations.Migration):

    dependencies = [
        ('dashboard', '0001_initial'),
        ('payments', '0021_four_eyes_api_key_created_by'),
    ]

    operations = [
        migrations.AddField(
            model_name='merchantsettings',
            name='api_payouts_enabled',
            field=models.BooleanField(default=True, verbose_name='payouts by API'),
        ),
        migrations.AlterField(
            model_name='auditentry',
            name='action',
            field=models.CharField(choices=[('login.succeeded', 'signed in'), ('login.failed', 'sign-in failed'), ('mfa.activated', 'two-factor activated'), ('mfa.deactivated', 'two-factor deactivated'), ('member.invited', 'member invited'), ('member.joined', 'member joined'), ('member.role_changed', "member's role changed"), ('member.removed', 'member removed'), ('api_key.created', 'API key created'), ('api_key.revoked', 'API key revoked'), ('api_key.revealed', 'API key revealed'), ('webhook_endpoint.updated', 'webhook endpoint updated'), ('webhook_secret.rotated', 'webhook secret rotated'), ('refund.created', 'refund created'), ('payout.created', 'payout created'), ('payout_batch.submitted', 'payout batch submitted'), ('payout_batch.approved', 'payout batch approved'), ('payout_batch.rejected', 'payout batch rejected'), ('payment_link.created', 'payment link created'), ('payment_link.deactivated', 'payment link deactivated'), ('payment_link.activated', 'payment link activated'), ('event.resent', 'event resent'), ('settings.updated', 'settings updated'), ('api_payouts.enabled', 'payouts by API turned on'), ('api_payouts.disabled', 'payouts by API turned off')], max_length=40, verbose_name='action'),
        ),
        migrations.RunPython(key_creators, migrations.RunPython.noop),
    ]
