"""Each person's language, kept as they use the dashboard (their security notices are written
in it), and the audit actions of settlements: an account added or removed, a settlement created,
a schedule changed."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('dashboard', '0003_audit_details_and_pricing'),
    ]

    operations = [
        migrations.CreateModel(
            name='UserLanguage',
            fields=[
                ('user', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='dashboard_language', serialize=False, to=settings.AUTH_USER_MODEL, verbose_name='user')),
                ('language', models.CharField(choices=[('fr', 'Français'), ('en', 'English')], max_length=10, verbose_name='language')),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='updated at')),
            ],
            options={
                'verbose_name': 'language of a user',
                'verbose_name_plural': 'languages of users',
            },
        ),
        migrations.AlterField(
            model_name='auditentry',
            name='action',
            field=models.CharField(choices=[('login.succeeded', 'signed in'), ('login.failed', 'sign-in failed'), ('mfa.activated', 'two-factor activated'), ('mfa.deactivated', 'two-factor deactivated'), ('member.invited', 'member invited'), ('member.joined', 'member joined'), ('member.role_changed', "member's role changed"), ('member.removed', 'member removed'), ('api_key.created', 'API key created'), ('api_key.revoked', 'API key revoked'), ('api_key.revealed', 'API key revealed'), ('webhook_endpoint.updated', 'webhook endpoint updated'), ('webhook_secret.rotated', 'webhook secret rotated'), ('refund.created', 'refund created'), ('payout.created', 'payout created'), ('payout_batch.submitted', 'payout batch submitted'), ('payout_batch.approved', 'payout batch approved'), ('payout_batch.rejected', 'payout batch rejected'), ('payment_link.created', 'payment link created'), ('payment_link.deactivated', 'payment link deactivated'), ('payment_link.activated', 'payment link activated'), ('event.resent', 'event resent'), ('settings.updated', 'settings updated'), ('api_payouts.enabled', 'payouts by API turned on'), ('api_payouts.disabled', 'payouts by API turned off'), ('pricing.updated', 'price plan changed'), ('settlement_account.added', 'settlement account added'), ('settlement_account.removed', 'settlement account removed'), ('settlement_schedule.updated', 'settlement schedule changed'), ('settlement.created', 'settlement created')], max_length=40, verbose_name='action'),
        ),
    ]
