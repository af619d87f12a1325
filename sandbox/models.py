"""The sandbox card and mobile money providers' own records."""

from django.db import models
from django.utils import timezone

from core import ids


class SandboxTransaction(models.Model):
    """The built-in test providers' own records: what the "operator" or "card provider" knows.

    This is the outside world's storage, used only by the sandbox adapters and the sandbox card
    page; the core never reads it. Every request the sandbox receives is counted here, so tests
    can prove a payment was asked for exactly once.
    """

    class Kind(models.TextChoices):
        MOBILE_MONEY = "mobile_money"
        CARD = "card"
        REFUND = "refund"

    id = models.CharField(primary_key=True, max_length=40, default=ids.sandbox_id, editable=False)
    kind = models.CharField(max_length=20, choices=Kind.choices)
    reference = models.CharField(max_length=64, db_index=True, help_text="Our charge or refund id.")
    attempt = models.CharField(max_length=64, blank=True, default="")
    amount = models.BigIntegerField()
    currency = models.CharField(max_length=3)
    phone = models.CharField(max_length=20, blank=True, default="")
    network = models.CharField(max_length=20, blank=True, default="")
    decision = models.CharField(max_length=10, blank=True, default="")
    reason_code = models.CharField(max_length=10, blank=True, default="")
    request_count = models.PositiveIntegerField(default=1)
    request = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        db_table = "payments_sandboxtransaction"  # created by the payments app, where it began
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "attempt"],
                condition=~models.Q(attempt=""),
                name="sandbox_attempt_unique",
            )
        ]

    def __str__(self) -> str:
        return self.id
