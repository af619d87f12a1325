"""The dashboard's people and its audit log; on PostgreSQL the ledger's trigger function
(payments 0007) refuses any UPDATE or DELETE of an audit row, as it does of a ledger row."""

import dashboard.models
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

APPEND_ONLY = """
CREATE TRIGGER dashboard_audit_append_only
    BEFORE UPDATE OR DELETE ON dashboard_auditentry
    FOR EACH ROW EXECUTE FUNCTION payments_ledger_append_only();
"""
DROP_APPEND_ONLY = """
DROP TRIGGER IF EXISTS dashboard_audit_append_only ON dashboard_auditentry;
"""


def append_only(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(APPEND_ONLY)


def drop_append_only(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(DROP_APPEND_ONLY)


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('payments', '0018_apikey_issue_permission'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='MerchantSettings',
            fields=[
                ('merchant', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='dashboard_settings', serialize=False, to='payments.merchant', verbose_name='merchant')),
                ('require_two_factor', models.BooleanField(default=False, help_text='Members without it are sent to set it up before any other page.', verbose_name='require two-factor authentication')),
                ('require_second_approver', models.BooleanField(blank=True, null=True, verbose_name='require a second approver for payout batches')),
            ],
            options={
                'verbose_name': 'team settings',
                'verbose_name_plural': 'team settings',
            },
        ),
        migrations.CreateModel(
            name='Invitation',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('email', models.EmailField(max_length=254, verbose_name='email')),
                ('role', models.CharField(choices=[('owner', 'Owner'), ('admin', 'Admin'), ('developer', 'Developer'), ('finance', 'Finance'), ('support', 'Support'), ('viewer', 'Viewer')], max_length=10, verbose_name='role')),
                ('key', models.CharField(default=dashboard.models.invitation_key, editable=False, max_length=64, unique=True)),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='created at')),
                ('expires_at', models.DateTimeField(default=dashboard.models.invitation_expiry, verbose_name='expires at')),
                ('accepted_at', models.DateTimeField(blank=True, null=True, verbose_name='accepted at')),
                ('invited_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='invited by')),
                ('merchant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='invitations', to='payments.merchant', verbose_name='merchant')),
            ],
            options={
                'verbose_name': 'invitation',
                'verbose_name_plural': 'invitations',
                'ordering': ['-created_at'],
            },
        ),
        migrations.CreateModel(
            name='AuditEntry',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='when')),
                ('email', models.CharField(blank=True, default='', max_length=254, verbose_name='email')),
                ('mode', models.CharField(blank=True, default='', max_length=4, verbose_name='mode')),
                ('action', models.CharField(choices=[('login.succeeded', 'signed in'), ('login.failed', 'sign-in failed'), ('mfa.activated', 'two-factor activated'), ('mfa.deactivated', 'two-factor deactivated'), ('member.invited', 'member invited'), ('member.joined', 'member joined'), ('member.role_changed', "member's role changed"), ('member.removed', 'member removed'), ('api_key.created', 'API key created'), ('api_key.revoked', 'API key revoked'), ('api_key.revealed', 'API key revealed'), ('webhook_endpoint.updated', 'webhook endpoint updated'), ('webhook_secret.rotated', 'webhook secret rotated'), ('refund.created', 'refund created'), ('payout.created', 'payout created'), ('payout_batch.submitted', 'payout batch submitted'), ('payout_batch.approved', 'payout batch approved'), ('payout_batch.rejected', 'payout batch rejected'), ('payment_link.created', 'payment link created'), ('payment_link.deactivated', 'payment link deactivated'), ('payment_link.activated', 'payment link activated'), ('event.resent', 'event resent'), ('settings.updated', 'settings updated')], max_length=40, verbose_name='action')),
                ('object_id', models.CharField(blank=True, default='', max_length=100, verbose_name='object')),
                ('ip', models.GenericIPAddressField(blank=True, null=True, verbose_name='client address')),
                ('user_agent', models.CharField(blank=True, default='', max_length=500, verbose_name='user agent')),
                ('merchant', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='payments.merchant', verbose_name='merchant')),
                ('user', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='user')),
            ],
            options={
                'verbose_name': 'audit entry',
                'verbose_name_plural': 'audit entries',
                'ordering': ['-created_at', '-id'],
                'indexes': [models.Index(fields=['merchant', '-created_at'], name='audit_merchant_created_idx')],
            },
        ),
        migrations.CreateModel(
            name='Membership',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('role', models.CharField(choices=[('owner', 'Owner'), ('admin', 'Admin'), ('developer', 'Developer'), ('finance', 'Finance'), ('support', 'Support'), ('viewer', 'Viewer')], max_length=10, verbose_name='role')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='created at')),
                ('merchant', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to='payments.merchant', verbose_name='merchant')),
                ('user', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='memberships', to=settings.AUTH_USER_MODEL, verbose_name='user')),
            ],
            options={
                'verbose_name': 'membership',
                'verbose_name_plural': 'memberships',
                'ordering': ['created_at'],
                'constraints': [models.UniqueConstraint(fields=('user', 'merchant'), name='membership_user_merchant')],
            },
        ),
        migrations.RunPython(append_only, drop_append_only),
]
