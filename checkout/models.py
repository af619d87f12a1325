"""Checkout sessions."""

from django.db import models
from django.utils import timezone

from payments import ids
from payments.models import Currency, Merchant


class SessionStatus(models.TextChoices):
    OPEN = "open", "Open"
    COMPLETE = "complete", "Complete"
    EXPIRED = "expired", "Expired"


class CheckoutSession(models.Model):
    id = models.CharField(primary_key=True, max_length=40, default=ids.session_id, editable=False)
    merchant = models.ForeignKey(
        Merchant, on_delete=models.PROTECT, related_name="checkout_sessions"
    )
    livemode = models.BooleanField(default=False)
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3, choices=Currency.choices)
    status = models.CharField(
        max_length=10, choices=SessionStatus.choices, default=SessionStatus.OPEN
    )
    success_url = models.URLField(max_length=2000)
    cancel_url = models.URLField(max_length=2000)
    metadata = models.JSONField(default=dict, blank=True)
    customer_phone = models.CharField(max_length=20, blank=True, default="")
    customer_email = models.EmailField(blank=True, default="")
    payment_methods = models.JSONField(default=list)
    succeeded_charge = models.OneToOneField(
        "payments.Charge",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="completed_session",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["merchant", "livemode", "-created_at", "-id"], name="session_list_idx"
            ),
            models.Index(
                fields=["expires_at"],
                name="session_open_expiry_idx",
                condition=models.Q(status="open"),
            ),
        ]

    def __str__(self) -> str:
        return self.id
