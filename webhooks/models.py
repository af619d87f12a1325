"""Events (the outbox): one row per state change, written in the same transaction as the change."""

from django.db import models
from django.utils import timezone

from payments import ids
from payments.models import Merchant


class EventType(models.TextChoices):
    CHARGE_SUCCEEDED = "charge.succeeded"
    CHARGE_FAILED = "charge.failed"
    CHARGE_DECLINED = "charge.declined"
    REFUND_SUCCEEDED = "refund.succeeded"
    REFUND_FAILED = "refund.failed"
    CHECKOUT_SESSION_COMPLETED = "checkout.session.completed"
    CHECKOUT_SESSION_EXPIRED = "checkout.session.expired"


class Event(models.Model):
    id = models.CharField(primary_key=True, max_length=40, default=ids.event_id, editable=False)
    merchant = models.ForeignKey(Merchant, on_delete=models.CASCADE, related_name="events")
    livemode = models.BooleanField(default=False)
    type = models.CharField(max_length=60, choices=EventType.choices)
    data = models.JSONField(help_text="The resource as the API showed it when the event happened.")
    # Where deliveries go; decided when the event is written (charge callback_url or merchant default).
    destination_url = models.URLField(max_length=2000, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["merchant", "livemode", "-created_at", "-id"], name="event_list_idx"
            ),
            models.Index(
                fields=["merchant", "livemode", "type", "-created_at", "-id"], name="event_type_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.id}"
