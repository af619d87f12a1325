"""Payout batches: many payouts from one spreadsheet (docs/guides/payout-batches.md), each row a
payout (docs/guides/payouts.md).

Models hold data and constraints only; every change goes through batches/services.py.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core import ids
from payments.models import ApiKey, Merchant, Payout

REFERENCE_MAX = 100


class BatchStatus(models.TextChoices):
    DRAFT = "draft", pgettext_lazy("status", "Draft")
    AWAITING_APPROVAL = "awaiting_approval", pgettext_lazy("status", "Awaiting approval")
    PROCESSING = "processing", pgettext_lazy("status", "Processing")
    COMPLETE = "complete", pgettext_lazy("status", "Complete")
    REJECTED = "rejected", pgettext_lazy("status", "Rejected")


class BatchSource(models.TextChoices):
    API = "api", "API"
    DASHBOARD = "dashboard", _("Dashboard")


class ItemStatus(models.TextChoices):
    DRAFT = "draft", pgettext_lazy("status", "Draft")  # not approved yet
    QUEUED = "queued", pgettext_lazy("status", "Queued")  # approved, its payout not made yet
    PENDING = "pending", pgettext_lazy("status", "Pending")  # its payout is pending
    SUCCEEDED = "succeeded", pgettext_lazy("status", "Succeeded")
    FAILED = "failed", pgettext_lazy("status", "Failed")
    CANCELED = "canceled", pgettext_lazy("status", "Canceled")  # its batch was rejected


ITEM_OPEN = (ItemStatus.QUEUED, ItemStatus.PENDING)


class PayoutBatch(models.Model):
    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.payout_batch_id, editable=False
    )
    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.PROTECT, related_name="+"
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    status = models.CharField(
        _("status"), max_length=20, choices=BatchStatus.choices, default=BatchStatus.DRAFT
    )
    source = models.CharField(_("source"), max_length=10, choices=BatchSource.choices)
    filename = models.CharField(_("file name"), max_length=255, blank=True, default="")
    # Who did what: dashboard users. A batch of the API was created by its key (created_by_key)
    # and, when the dashboard made that key, by the member who made it (created_by); it is
    # submitted by no one, and approved by no one when the key holder approves it at once.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by_key = models.ForeignKey(
        ApiKey,
        verbose_name=_("created with the API key"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    approved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    rejected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    row_count = models.PositiveIntegerField(_("rows"), default=0)
    # {"CDF": minor units, …}: what the rows add up to, per currency.
    totals = models.JSONField(_("totals"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    submitted_at = models.DateTimeField(_("submitted at"), null=True, blank=True)
    approved_at = models.DateTimeField(_("approved at"), null=True, blank=True)
    rejected_at = models.DateTimeField(_("rejected at"), null=True, blank=True)
    completed_at = models.DateTimeField(_("completed at"), null=True, blank=True)
    # While processing: when the sweep takes the batch up if no worker has paid a row since.
    next_run_at = models.DateTimeField(_("next run at"), null=True, blank=True)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("payout batch")
        verbose_name_plural = _("payout batches")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["merchant", "livemode", "-created_at", "-id"], name="payout_batch_list_idx"
            ),
            models.Index(
                fields=["next_run_at"],
                name="payout_batch_run_idx",
                condition=Q(status="processing"),
            ),
        ]

    def __str__(self) -> str:
        return self.id


class PayoutBatchItem(models.Model):
    """One row: as read (phone, network normalised or predicted; amount in minor units) and,
    once approved, its payout. `problems` lists what keeps it from being paid (empty: none)."""

    batch = models.ForeignKey(
        PayoutBatch, verbose_name=_("payout batch"), on_delete=models.CASCADE, related_name="items"
    )
    # The batch's merchant and mode, for the constraint on references.
    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.PROTECT, related_name="+"
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    row = models.PositiveIntegerField(_("row"))
    phone = models.CharField(_("phone"), max_length=40, blank=True, default="")
    amount = models.BigIntegerField(_("amount (minor units)"), null=True, blank=True)
    currency = models.CharField(_("currency"), max_length=10, blank=True, default="")
    network = models.CharField(_("network"), max_length=40, blank=True, default="")
    reference = models.CharField(_("reference"), max_length=REFERENCE_MAX * 2, blank=True)
    description = models.TextField("description", blank=True, default="")
    problems = models.JSONField(_("problems"), default=list, blank=True)
    # Whether the reference is taken for the merchant and mode: from submission on, until a
    # rejection, or the row's failure (nothing paid), gives it back. Drafts take none (a
    # corrected file is uploaded again).
    reference_held = models.BooleanField(_("reference held"), default=False)
    status = models.CharField(
        _("status"), max_length=10, choices=ItemStatus.choices, default=ItemStatus.DRAFT
    )
    payout = models.OneToOneField(
        Payout,
        verbose_name=_("payout"),
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="batch_item",
    )
    failure_code = models.CharField(_("failure code"), max_length=40, blank=True, default="")
    failure_message = models.CharField(_("failure message"), max_length=500, blank=True, default="")
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("payout batch row")
        verbose_name_plural = _("payout batch rows")
        ordering = ["batch", "row"]
        constraints = [
            models.UniqueConstraint(fields=["batch", "row"], name="payout_batch_item_row_uniq"),
            models.UniqueConstraint(
                fields=["merchant", "livemode", "reference"],
                condition=Q(reference_held=True),
                name="payout_batch_reference_uniq",
            ),
        ]
        indexes = [
            models.Index(
                fields=["batch", "row"],
                name="payout_batch_item_queued_idx",
                condition=Q(status="queued"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.batch_id} #{self.row}"

    @property
    def idempotency_key(self) -> str:
        """The row's payout key, `{batch id}:{reference}` (one payout per row, ever)."""
        return f"{self.batch_id}:{self.reference}"
