"""Checkout sessions."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core import ids
from payments.models import Currency, Merchant


class SessionStatus(models.TextChoices):
    OPEN = "open", pgettext_lazy("session status", "Open")
    COMPLETE = "complete", pgettext_lazy("session status", "Complete")
    EXPIRED = "expired", pgettext_lazy("session status", "Expired")


class CheckoutSession(models.Model):
    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.session_id, editable=False
    )
    merchant = models.ForeignKey(
        Merchant,
        on_delete=models.PROTECT,
        related_name="checkout_sessions",
        verbose_name=_("merchant"),
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    amount = models.BigIntegerField(_("amount (minor units)"))
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    status = models.CharField(
        _("status"), max_length=10, choices=SessionStatus.choices, default=SessionStatus.OPEN
    )
    success_url = models.URLField(_("success URL"), max_length=2000)
    cancel_url = models.URLField(_("cancel URL"), max_length=2000)
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    customer_phone = models.CharField(_("customer phone"), max_length=20, blank=True, default="")
    customer_email = models.EmailField(_("customer email"), blank=True, default="")
    # The language of the customer's page (their receipt's), once they have seen it.
    customer_language = models.CharField(
        _("customer language"), max_length=8, blank=True, default=""
    )
    # The payment link the session was opened from (links/), if any.
    payment_link = models.ForeignKey(
        "links.PaymentLink",
        verbose_name=_("payment link"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="sessions",
    )
    payment_methods = models.JSONField(_("payment methods"), default=list)
    succeeded_charge = models.OneToOneField(
        "payments.Charge",
        verbose_name=_("succeeded charge"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="completed_session",
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)
    expires_at = models.DateTimeField(_("expires at"))
    completed_at = models.DateTimeField(_("completed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("checkout session")
        verbose_name_plural = _("checkout sessions")
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


class PromptedPhone(models.Model):
    """The live payment prompts the hosted pages attempted lately to one phone number, whatever
    the merchant, link or client address (docs/operations/security.md). An attempt is counted
    under this row's lock, in the transaction that creates its charge: several web processes
    never let more through than PHONE_PROMPT_LIMITS, and an attempt that makes no charge is not
    counted."""

    phone = models.CharField(_("phone"), primary_key=True, max_length=20)
    # When each attempt was made (Unix seconds, oldest first), within the longest window.
    attempts = models.JSONField(_("attempts"), default=list)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now, db_index=True)

    class Meta:
        verbose_name = _("prompted phone")
        verbose_name_plural = _("prompted phones")

    def __str__(self) -> str:
        return self.phone
