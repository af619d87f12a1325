"""Events (the outbox): one row per state change, written in the same transaction as the change."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone

from payments import ids
from payments.models import Merchant, new_webhook_secret
from webhooks.transport import url_refusal


class WebhookEndpoint(models.Model):
    """A merchant's default webhook URL and signing secret, one per mode: a test key sees and
    changes only the test one, and test events are never signed with the live secret.

    After a rotation the previous secret still signs deliveries (beside the new one) until
    previous_secret_expires_at, so the merchant can switch without missing an event."""

    merchant = models.ForeignKey(
        Merchant, on_delete=models.CASCADE, related_name="webhook_endpoints"
    )
    livemode = models.BooleanField()
    url = models.URLField(max_length=2000, blank=True, default="", help_text="Default URL.")
    secret = models.CharField(max_length=100, default=new_webhook_secret)
    previous_secret = models.CharField(max_length=100, blank=True, default="")
    previous_secret_expires_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["livemode"]
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "livemode"], name="webhook_endpoint_per_mode"
            )
        ]

    def __str__(self) -> str:
        return f"{self.merchant_id} {'live' if self.livemode else 'test'}"

    def clean(self) -> None:
        """The same destination rules as the API, for a URL edited by staff."""
        if not self.url:
            return
        refusal = url_refusal(self.url, allow_private=settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS)
        if refusal:
            raise ValidationError({"url": f"Webhooks cannot be sent there: {refusal}."})
        if self.livemode and not self.url.lower().startswith("https://"):
            raise ValidationError({"url": "Live mode requires an https URL."})

    def signing_secrets(self, now) -> list[str]:
        """The secrets a delivery is signed with now: the current one first."""
        secrets = [self.secret]
        expires = self.previous_secret_expires_at
        if self.previous_secret and expires is not None and expires > now:
            secrets.append(self.previous_secret)
        return secrets


class EventType(models.TextChoices):
    CHARGE_SUCCEEDED = "charge.succeeded"
    CHARGE_FAILED = "charge.failed"
    CHARGE_DECLINED = "charge.declined"
    REFUND_SUCCEEDED = "refund.succeeded"
    REFUND_FAILED = "refund.failed"
    CHECKOUT_SESSION_COMPLETED = "checkout.session.completed"
    CHECKOUT_SESSION_EXPIRED = "checkout.session.expired"
    PAYOUT_SUCCEEDED = "payout.succeeded"
    PAYOUT_FAILED = "payout.failed"


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


class DeliveryStatus(models.TextChoices):
    PENDING = "pending"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class Delivery(models.Model):
    """One event on its way to one URL: retried on the schedule until it succeeds or fails."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries")
    url = models.URLField(max_length=2000)
    status = models.CharField(
        max_length=20, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    # Held by the one worker sending it now; an expired hold means that worker died.
    locked_until = models.DateTimeField(null=True, blank=True, editable=False)
    last_error = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "deliveries"
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="delivery_due_idx")]

    def __str__(self) -> str:
        return f"{self.event_id} → {self.url} ({self.status})"


class DeliveryAttempt(models.Model):
    """One HTTP request of a delivery, as staff need to see it."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    # Also kept here so the event's admin page lists every attempt of every delivery.
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="attempts")
    attempted_at = models.DateTimeField(default=timezone.now)
    url = models.URLField(max_length=2000)
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)
    response_body = models.TextField(blank=True, default="", help_text="First 1 KB of the answer.")

    class Meta:
        ordering = ["-attempted_at", "-id"]

    def __str__(self) -> str:
        return f"{self.delivery_id} at {self.attempted_at:%Y-%m-%d %H:%M:%S}"
