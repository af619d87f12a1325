"""Events (the outbox): one row per state change, written in the same transaction as the change."""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core import ids
from core.destinations import url_refusal
from payments.models import Merchant, new_webhook_secret


class WebhookEndpoint(models.Model):
    """A merchant's default webhook URL and signing secret, one per mode: a test key sees and
    changes only the test one, and test events are never signed with the live secret.

    After a rotation the previous secret still signs deliveries (beside the new one) until
    previous_secret_expires_at, so the merchant can switch without missing an event."""

    merchant = models.ForeignKey(
        Merchant,
        on_delete=models.CASCADE,
        related_name="webhook_endpoints",
        verbose_name=_("merchant"),
    )
    livemode = models.BooleanField(_("live mode"))
    url = models.URLField(
        "URL", max_length=2000, blank=True, default="", help_text=_("Default URL.")
    )
    secret = models.CharField(_("signing secret"), max_length=100, default=new_webhook_secret)
    previous_secret = models.CharField(_("previous secret"), max_length=100, blank=True, default="")
    previous_secret_expires_at = models.DateTimeField(
        _("previous secret expires at"), null=True, blank=True
    )
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("webhook endpoint")
        verbose_name_plural = _("webhook endpoints")
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
    PAYOUT_BATCH_COMPLETED = "payout_batch.completed"
    SETTLEMENT_PAID = "settlement.paid"
    SETTLEMENT_FAILED = "settlement.failed"


class Event(models.Model):
    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.event_id, editable=False
    )
    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.CASCADE, related_name="events"
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    type = models.CharField("type", max_length=60, choices=EventType.choices)
    data = models.JSONField(
        _("data"), help_text=_("The resource as the API showed it when the event happened.")
    )
    # Where deliveries go; decided when the event is written (charge callback_url or merchant default).
    destination_url = models.URLField(_("destination URL"), max_length=2000, blank=True, default="")
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
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
    PENDING = "pending", pgettext_lazy("status", "Pending")
    SUCCEEDED = "succeeded", pgettext_lazy("status", "Succeeded")
    FAILED = "failed", pgettext_lazy("status", "Failed")


class Delivery(models.Model):
    """One event on its way to one URL: retried on the schedule until it succeeds or fails."""

    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="deliveries"
    )
    # Where the last attempt went (or the first will go). A delivery to the mode's default URL
    # (follows_endpoint) goes, at each attempt, to that URL as it is then: a merchant who changes
    # it gets the pending retries at the new one. A charge's or payout's callback_url is fixed.
    url = models.URLField("URL", max_length=2000)
    # The event's merchant and mode, kept on the delivery so that a merchant's waiting deliveries
    # come from one index (delivery_merchant_waiting_idx) without reading the events. Empty only
    # on a delivery written by a release before them during an upgrade (its task and the sweep
    # still send it; services read the event's then).
    merchant = models.ForeignKey(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.CASCADE,
        related_name="+",
        null=True,
        editable=False,
        db_index=False,
    )
    livemode = models.BooleanField(_("live mode"), null=True, editable=False)
    follows_endpoint = models.BooleanField(
        _("follows the endpoint"),
        default=False,
        db_default=False,
        help_text=_("Sent to the mode's default URL as it is at each attempt."),
    )
    status = models.CharField(
        _("status"), max_length=20, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    next_attempt_at = models.DateTimeField(_("next attempt at"), null=True, blank=True)
    # Held by the one worker sending it now; an expired hold means that worker died.
    locked_until = models.DateTimeField(_("locked until"), null=True, blank=True, editable=False)
    last_error = models.TextField(_("last error"), blank=True, default="")
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)

    class Meta:
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["status", "next_attempt_at"], name="delivery_due_idx"),
            # A merchant's waiting deliveries in a mode, oldest due first (webhooks/services.py:
            # the one a slot given back wakes, and a backlog's batch). Of the pending deliveries
            # that carry their merchant: a condition the claim of one delivery by id never
            # states, so the planner cannot read this index for it instead of the key, as it
            # did when the statistics had sampled no pending delivery (migration 0010).
            models.Index(
                fields=["merchant", "livemode", "next_attempt_at", "id"],
                name="delivery_merchant_waiting_idx",
                condition=models.Q(status="pending", merchant__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} → {self.url} ({self.status})"


class DeliveryAttempt(models.Model):
    """One HTTP request of a delivery, as staff need to see it."""

    delivery = models.ForeignKey(
        Delivery, verbose_name=_("delivery"), on_delete=models.CASCADE, related_name="attempt_log"
    )
    # Also kept here so the event's admin page lists every attempt of every delivery.
    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="attempts"
    )
    attempted_at = models.DateTimeField(_("attempted at"), default=timezone.now)
    url = models.URLField("URL", max_length=2000)
    status_code = models.PositiveIntegerField(_("status code"), null=True, blank=True)
    error = models.TextField(_("error"), blank=True, default="")
    duration_ms = models.PositiveIntegerField(_("duration (ms)"), default=0)
    response_body = models.TextField(
        _("answer"), blank=True, default="", help_text=_("First 1 KB of the answer.")
    )

    class Meta:
        verbose_name = _("delivery attempt")
        verbose_name_plural = _("delivery attempts")
        ordering = ["-attempted_at", "-id"]

    def __str__(self) -> str:
        return f"{self.delivery_id} at {self.attempted_at:%Y-%m-%d %H:%M:%S}"


class Resend(models.Model):
    """One resend asked for (API or staff), counted against the hourly limits whether it made a
    new delivery or answered one still waiting."""

    event = models.ForeignKey(
        Event, verbose_name=_("event"), on_delete=models.CASCADE, related_name="resends"
    )
    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.CASCADE, related_name="+"
    )
    livemode = models.BooleanField(_("live mode"))
    delivery = models.ForeignKey(
        Delivery, verbose_name=_("delivery"), on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("resend")
        verbose_name_plural = _("resends")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["merchant", "livemode", "created_at"], name="resend_account_idx"),
            models.Index(fields=["event", "created_at"], name="resend_event_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} at {self.created_at:%Y-%m-%d %H:%M:%S}"
