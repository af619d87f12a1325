"""Fees: merchants' price rates, the rate kept on each charge, a payout's fee, and each ledger
row's fee and available_on. On a ledger of millions of rows nothing here rewrites or scans a
table: nullable columns and a constant db_default are changes of the catalogue only on
PostgreSQL (11 and later). Older rows read as fee 0, available from their creation. The check on
fees and the pending rows' index follow in 0026, outside a transaction."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('payments', '0024_extra_payment_checks'),
    ]

    operations = [
        migrations.CreateModel(
            name='PriceRate',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('charge', 'Collection'), ('payout', 'Payout'), ('settlement', 'Settlement')], max_length=20, verbose_name='kind')),
                ('payment_method', models.CharField(blank=True, choices=[('mobile_money', 'Mobile money'), ('card', 'Card')], default='', help_text='Blank: every method.', max_length=20, verbose_name='payment method')),
                ('network', models.CharField(blank=True, choices=[('AIRTEL_MONEY', 'Airtel Money'), ('VODACOM_MPESA', 'Vodacom M-Pesa'), ('ORANGE_MONEY', 'Orange Money')], default='', help_text='Blank: every network of the method.', max_length=20, verbose_name='network')),
                ('currency', models.CharField(choices=[('CDF', 'Congolese franc'), ('USD', 'US dollar')], max_length=3, verbose_name='currency')),
                ('rate_bp', models.PositiveIntegerField(help_text='250 is 2.50 % of the amount.', verbose_name='rate (basis points)')),
                ('fixed', models.BigIntegerField(default=0, help_text='Cents or centimes, added to the rate.', verbose_name='fixed fee (minor units)')),
                ('available_after_days', models.PositiveSmallIntegerField(default=0, help_text="Collections only: days before a payment's net is available.", verbose_name='available after (days)')),
                ('updated_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='updated at')),
                ('updated_by', models.CharField(blank=True, default='', max_length=150, verbose_name='updated by')),
            ],
            options={
                'verbose_name': 'price rate',
                'verbose_name_plural': 'price rates',
                'ordering': ['merchant', 'kind', 'currency', 'payment_method', 'network'],
                'permissions': [('change_pricing', "Can change a merchant's price plan")],
            },
        ),
        migrations.AddField(
            model_name='charge',
            name='fee_available_after_days',
            field=models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='available after (days)'),
        ),
        migrations.AddField(
            model_name='charge',
            name='fee_fixed',
            field=models.BigIntegerField(blank=True, null=True, verbose_name='fixed fee (minor units)'),
        ),
        migrations.AddField(
            model_name='charge',
            name='fee_rate_bp',
            field=models.PositiveIntegerField(blank=True, null=True, verbose_name='fee rate (basis points)'),
        ),
        migrations.AddField(
            model_name='ledgerentry',
            name='available_on',
            field=models.DateTimeField(blank=True, null=True, verbose_name='available on'),
        ),
        migrations.AddField(
            model_name='ledgerentry',
            name='fee',
            field=models.BigIntegerField(db_default=0, default=0, verbose_name='fee (minor units)'),
        ),
        migrations.AddField(
            model_name='payout',
            name='fee',
            field=models.BigIntegerField(db_default=0, default=0, verbose_name='fee (minor units)'),
        ),
        migrations.AddField(
            model_name='pricerate',
            name='merchant',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='price_rates', to='payments.merchant', verbose_name='merchant'),
        ),
        migrations.AddConstraint(
            model_name='pricerate',
            constraint=models.UniqueConstraint(fields=('merchant', 'kind', 'payment_method', 'network', 'currency'), name='price_rate_once'),
        ),
        migrations.AddConstraint(
            model_name='pricerate',
            constraint=models.CheckConstraint(condition=models.Q(('rate_bp__lte', 10000)), name='price_rate_bp_at_most_all'),
        ),
        migrations.AddConstraint(
            model_name='pricerate',
            constraint=models.CheckConstraint(condition=models.Q(('fixed__gte', 0)), name='price_rate_fixed'),
        ),
        migrations.AddConstraint(
            model_name='pricerate',
            constraint=models.CheckConstraint(condition=models.Q(('kind', 'charge'), ('available_after_days', 0), _connector='OR'), name='price_rate_delay_charges_only'),
        ),
        migrations.AddConstraint(
            model_name='pricerate',
            constraint=models.CheckConstraint(condition=models.Q(('network', ''), models.Q(('payment_method', ''), _negated=True), _connector='OR'), name='price_rate_network_has_method'),
        ),
    ]
