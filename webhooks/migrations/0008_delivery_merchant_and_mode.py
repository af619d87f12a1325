"""Each delivery carries its event's merchant and mode, so that a merchant's waiting deliveries
(the one a slot given back wakes, a backlog's batch) are read from one index of the deliveries
(0009) instead of joining every pending delivery to its event. The columns may be empty: a
delivery the previous release writes while this one is being deployed has none (the services
then read the event's); every delivery already written is filled in here."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import OuterRef, Subquery


def fill_in(apps, schema_editor):
    Delivery = apps.get_model("webhooks", "Delivery")
    Event = apps.get_model("webhooks", "Event")
    event = Event.objects.filter(pk=OuterRef("event_id"))
    Delivery.objects.filter(merchant__isnull=True).update(
        merchant_id=Subquery(event.values("merchant_id")[:1]),
        livemode=Subquery(event.values("livemode")[:1]),
    )


class Migration(migrations.Migration):
    dependencies = [
        ("payments", "0019_charge_search_indexes"),
        ("webhooks", "0007_payout_batch_events"),
    ]

    operations = [
        migrations.AddField(
            model_name="delivery",
            name="merchant",
            field=models.ForeignKey(
                db_index=False,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.CASCADE,
                related_name="+",
                to="payments.merchant",
                verbose_name="merchant",
            ),
        ),
        migrations.AddField(
            model_name="delivery",
            name="livemode",
            field=models.BooleanField(editable=False, null=True, verbose_name="live mode"),
        ),
        migrations.RunPython(fill_in, migrations.RunPython.noop, elidable=True),
    ]
