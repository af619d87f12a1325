"""A merchant's application for live mode (its documents in the default storage) and the audit
log's activation.* actions."""

import dashboard.documents
import dashboard.models
import django.core.validators
import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('dashboard', '0004_settlements_and_languages'),
        ('payments', '0029_review_activation_permission'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name='auditentry',
            name='action',
            field=models.CharField(choices=[('login.succeeded', 'signed in'), ('login.failed', 'sign-in failed'), ('mfa.activated', 'two-factor activated'), ('mfa.deactivated', 'two-factor deactivated'), ('member.invited', 'member invited'), ('member.joined', 'member joined'), ('member.role_changed', "member's role changed"), ('member.removed', 'member removed'), ('api_key.created', 'API key created'), ('api_key.revoked', 'API key revoked'), ('api_key.revealed', 'API key revealed'), ('webhook_endpoint.updated', 'webhook endpoint updated'), ('webhook_secret.rotated', 'webhook secret rotated'), ('refund.created', 'refund created'), ('payout.created', 'payout created'), ('payout_batch.submitted', 'payout batch submitted'), ('payout_batch.approved', 'payout batch approved'), ('payout_batch.rejected', 'payout batch rejected'), ('payment_link.created', 'payment link created'), ('payment_link.deactivated', 'payment link deactivated'), ('payment_link.activated', 'payment link activated'), ('event.resent', 'event resent'), ('settings.updated', 'settings updated'), ('api_payouts.enabled', 'payouts by API turned on'), ('api_payouts.disabled', 'payouts by API turned off'), ('pricing.updated', 'price plan changed'), ('activation.submitted', 'application for live mode submitted'), ('activation.approved', 'application for live mode approved'), ('activation.rejected', 'application for live mode rejected'), ('activation.changes_requested', 'changes requested to the application for live mode')], max_length=40, verbose_name='action'),
        ),
        migrations.CreateModel(
            name='ActivationApplication',
            fields=[
                ('id', models.CharField(default=dashboard.models.activation_id, editable=False, max_length=40, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'Draft'), ('submitted', 'Submitted'), ('approved', 'Approved'), ('rejected', 'Rejected'), ('changes_requested', 'Changes requested')], default='draft', max_length=20, verbose_name='status')),
                ('legal_name', models.CharField(blank=True, default='', max_length=200, verbose_name='legal name')),
                ('rccm_number', models.CharField(blank=True, default='', max_length=60, verbose_name='RCCM number')),
                ('id_nat', models.CharField(blank=True, default='', max_length=60, verbose_name='Id. Nat.')),
                ('nif', models.CharField(blank=True, default='', max_length=60, verbose_name='NIF (tax number)')),
                ('address', models.CharField(blank=True, default='', max_length=300, verbose_name='address')),
                ('city', models.CharField(blank=True, default='', max_length=100, verbose_name='city')),
                ('activity', models.CharField(blank=True, default='', max_length=300, verbose_name='activity')),
                ('website', models.URLField(blank=True, default='', max_length=300, verbose_name='website or social page')),
                ('representative_name', models.CharField(blank=True, default='', max_length=200, verbose_name="representative's name")),
                ('representative_phone', models.CharField(blank=True, default='', max_length=30, validators=[django.core.validators.RegexValidator('^\\+?[0-9][0-9 ]{5,24}[0-9]$', 'Digits and spaces, optionally after a +, e.g. +243 81 234 5678.')], verbose_name="representative's phone")),
                ('monthly_volume', models.BigIntegerField(blank=True, null=True, verbose_name='expected monthly volume (minor units)')),
                ('monthly_volume_currency', models.CharField(blank=True, choices=[('CDF', 'Congolese franc'), ('USD', 'US dollar')], default='', max_length=3, verbose_name='currency of the monthly volume')),
                ('account_type', models.CharField(blank=True, choices=[('bank_account', 'Bank account'), ('mobile_money', 'Mobile money')], default='', max_length=20, verbose_name='settlement account')),
                ('account_currency', models.CharField(blank=True, choices=[('CDF', 'Congolese franc'), ('USD', 'US dollar')], default='', max_length=3, verbose_name='currency of the settlement account')),
                ('bank_name', models.CharField(blank=True, default='', max_length=100, verbose_name='bank')),
                ('account_holder', models.CharField(blank=True, default='', max_length=200, verbose_name='account holder')),
                ('account_number', models.CharField(blank=True, default='', max_length=60, verbose_name='account number')),
                ('swift', models.CharField(blank=True, default='', max_length=20, verbose_name='SWIFT/BIC')),
                ('account_phone', models.CharField(blank=True, default='', max_length=30, verbose_name='mobile money number')),
                ('account_network', models.CharField(blank=True, choices=[('AIRTEL_MONEY', 'Airtel Money'), ('VODACOM_MPESA', 'Vodacom M-Pesa'), ('ORANGE_MONEY', 'Orange Money')], default='', max_length=20, verbose_name='network')),
                ('rccm_certificate', models.FileField(blank=True, max_length=200, upload_to=dashboard.documents.storage_name, verbose_name='RCCM certificate')),
                ('id_nat_certificate', models.FileField(blank=True, max_length=200, upload_to=dashboard.documents.storage_name, verbose_name='Id. Nat. certificate')),
                ('representative_id', models.FileField(blank=True, max_length=200, upload_to=dashboard.documents.storage_name, verbose_name="representative's identity document")),
                ('decision_note', models.TextField(blank=True, default='', verbose_name='reason or note')),
                ('language', models.CharField(blank=True, default='', max_length=8, verbose_name='language')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='created at')),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='updated at')),
                ('submitted_at', models.DateTimeField(blank=True, null=True, verbose_name='submitted at')),
                ('decided_at', models.DateTimeField(blank=True, null=True, verbose_name='decided at')),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='decided by')),
                ('merchant', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='activation', to='payments.merchant', verbose_name='merchant')),
                ('settlement_account', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='payments.settlementaccount', verbose_name='settlement account')),
                ('submitted_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='submitted by')),
            ],
            options={
                'verbose_name': 'application for live mode',
                'verbose_name_plural': 'applications for live mode',
                'ordering': ['submitted_at', 'created_at'],
                'indexes': [models.Index(fields=['status', 'submitted_at'], name='activation_queue_idx')],
            },
        ),
    ]
