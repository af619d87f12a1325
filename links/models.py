"""Payment links: a shareable page (/pay/{slug}) that opens a checkout session for each customer,
and the receipts sent to customers who gave an e-mail address."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import ids
from payments.models import Currency, Merchant


class PaymentLink(models.Model):
    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.payment_link_id, editable=False
    )
    slug = models.CharField(
        _("slug"), max_length=40, unique=True, default=ids.payment_link_slug, editable=False
    )
    merchant = models.ForeignKey(
        Merchant,
        on_delete=models.PROTECT,
        related_name="payment_links",
        verbose_name=_("merchant"),
        db_index=False,  # payment_link_list_idx begins with it
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    active = models.BooleanField(_("active"), default=True)
    amount = models.BigIntegerField(_("amount (minor units)"), null=True, blank=True)
    custom_amount = models.BooleanField(_("customer chooses the amount"), default=False)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    description = models.CharField("description", max_length=200)
    max_payments = models.PositiveIntegerField(_("maximum payments"), null=True, blank=True)
    # Completed sessions of the link, counted under the link's row lock when each completes.
    payments_count = models.PositiveIntegerField(_("payments"), default=0)
    expires_at = models.DateTimeField(_("expires at"), null=True, blank=True)
    success_url = models.URLField(_("success URL"), max_length=2000, blank=True, default="")
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("payment link")
        verbose_name_plural = _("payment links")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["merchant", "livemode", "-created_at", "-id"],
                name="payment_link_list_idx",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(max_payments__isnull=True)
                | models.Q(payments_count__lte=models.F("max_payments")),
                name="payment_link_within_max_payments",
            ),
            models.CheckConstraint(
                condition=models.Q(custom_amount=True, amount__isnull=True)
                | models.Q(custom_amount=False, amount__isnull=False),
                name="payment_link_amount_or_custom",
            ),
        ]

    def __str__(self) -> str:
        return self.id

    @property
    def exhausted(self) -> bool:
        return self.max_payments is not None and self.payments_count >= self.max_payments

    def closed(self, now=None) -> bool:
        """Inactive, expired or used up: its page answers 410 and opens no session."""
        now = now or timezone.now()
        expired = self.expires_at is not None and self.expires_at <= now
        return not self.active or expired or self.exhausted


class Receipt(models.Model):
    """The receipt of a completed checkout session, mailed by a worker once (`sent_at`, claimed
    under this row's lock)."""

    session = models.OneToOneField(
        "checkout.CheckoutSession",
        on_delete=models.PROTECT,
        related_name="receipt",
        verbose_name=_("checkout session"),
    )
    email = models.EmailField(_("e-mail address"))
    language = models.CharField(_("language"), max_length=8)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    last_error = models.CharField(_("last error"), max_length=500, blank=True, default="")
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)

    class Meta:
        verbose_name = _("receipt")
        verbose_name_plural = _("receipts")

    def __str__(self) -> str:
        return f"{self.session_id} → {self.email}"
