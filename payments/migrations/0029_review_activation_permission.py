"""The staff permission to review applications for live mode (payments.review_activation)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('payments', '0028_settlement_schedules_and_time_zone'),
    ]

    operations = [
        migrations.AlterModelOptions(
            name='merchant',
            options={'ordering': ['-created_at'], 'permissions': [('review_activation', 'Can review applications for live mode')], 'verbose_name': 'merchant', 'verbose_name_plural': 'merchants'},
        ),
    ]
