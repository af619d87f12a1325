"""The audit log's details (what a staff change of a price plan changed) and its action
pricing.updated. The column may be empty: PostgreSQL adds it without rewriting the table, and the
rows already written, which no one may change, keep none."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('dashboard', '0002_api_payouts_and_key_creators'),
    ]

    operations = [
        migrations.AddField(
            model_name='auditentry',
            name='details',
            field=models.JSONField(blank=True, null=True, verbose_name='details'),
        ),
        migrations.AlterField(
            model_name='auditentry',
            name='action',
            field=models.CharField(choices=[('login.succeeded', 'signed in'), ('login.failed', 'sign-in failed'), ('mfa.activated', 'two-factor activated'), ('mfa.deactivated', 'two-factor deactivated'), ('member.invited', 'member invited'), ('member.joined', 'member joined'), ('member.role_changed', "member's role changed"), ('member.removed', 'member removed'), ('api_key.created', 'API key created'), ('api_key.revoked', 'API key revoked'), ('api_key.revealed', 'API key revealed'), ('webhook_endpoint.updated', 'webhook endpoint updated'), ('webhook_secret.rotated', 'webhook secret rotated'), ('refund.created', 'refund created'), ('payout.created', 'payout created'), ('payout_batch.submitted', 'payout batch submitted'), ('payout_batch.approved', 'payout batch approved'), ('payout_batch.rejected', 'payout batch rejected'), ('payment_link.created', 'payment link created'), ('payment_link.deactivated', 'payment link deactivated'), ('payment_link.activated', 'payment link activated'), ('event.resent', 'event resent'), ('settings.updated', 'settings updated'), ('api_payouts.enabled', 'payouts by API turned on'), ('api_payouts.disabled', 'payouts by API turned off'), ('pricing.updated', 'price plan changed')], max_length=40, verbose_name='action'),
        ),
    ]
