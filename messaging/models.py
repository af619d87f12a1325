"""Text messages: one row per message, sent at most once (claimed by a conditional update before
the vendor is called), and the receipts customers get by SMS."""

from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from core import ids
from payments.models import Merchant


class MessageKind(models.TextChoices):
    RECEIPT = "receipt", _("receipt")
    NOTIFICATION = "notification", _("notification")


class MessageStatus(models.TextChoices):
    QUEUED = "queued", _("queued")
    SENT = "sent", _("sent")
    DELIVERED = "delivered", _("delivered")
    FAILED = "failed", _("failed")


class Message(models.Model):
    """A text message to one phone. Live: `queued` until the vendor took it (`sent`), then
    `delivered` or `failed` as the vendor reports; a message the vendor refused, or that could not
    be sent within the retries, is `failed`. Test mode never sends: its messages are kept, `sent`,
    for the test inbox."""

    id = models.CharField(primary_key=True, max_length=40, default=ids.message_id, editable=False)
    merchant = models.ForeignKey(
        Merchant, on_delete=models.CASCADE, related_name="messages", verbose_name=_("merchant")
    )
    livemode = models.BooleanField(_("live mode"))
    to = models.CharField(_("to"), max_length=20, help_text=_("E.164"))
    body = models.TextField(_("text"))
    kind = models.CharField(_("kind"), max_length=20, choices=MessageKind.choices)
    status = models.CharField(
        _("status"), max_length=20, choices=MessageStatus.choices, default=MessageStatus.QUEUED
    )
    # The SMS_PROVIDER that sent it ("" until then, "test" for a test-mode message) and the
    # vendor's id of it, by which its delivery reports are matched.
    provider = models.CharField(_("provider"), max_length=20, blank=True, default="")
    vendor_id = models.CharField(_("vendor's id"), max_length=100, blank=True, default="")
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    # Set by the worker that claimed the message while it calls the vendor: no other takes it.
    claimed_at = models.DateTimeField(_("claimed at"), null=True, blank=True)
    next_attempt_at = models.DateTimeField(_("next attempt"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)
    error = models.CharField(_("error"), max_length=500, blank=True, default="")

    class Meta:
        verbose_name = _("text message")
        verbose_name_plural = _("text messages")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["merchant", "livemode", "-created_at"], name="message_inbox"),
            models.Index(fields=["status", "next_attempt_at"], name="message_due"),
            models.Index(fields=["provider", "vendor_id"], name="message_vendor_id"),
        ]

    def __str__(self) -> str:
        return f"{self.id} → {self.to}"


class MessagingSettings(models.Model):
    """A merchant's choices about text messages: whether its customers get a receipt by SMS (on
    unless the merchant turned it off), and the sender name its messages carry (set by staff once
    the vendor has registered it; blank: the service's, SMS_SENDER_NAME)."""

    merchant = models.OneToOneField(
        Merchant,
        on_delete=models.CASCADE,
        related_name="messaging_settings",
        verbose_name=_("merchant"),
    )
    sms_receipts = models.BooleanField(_("receipts by SMS"), default=True)
    sender_name = models.CharField(_("SMS sender name"), max_length=11, blank=True, default="")

    class Meta:
        verbose_name = _("text message settings")
        verbose_name_plural = _("text message settings")

    def __str__(self) -> str:
        return str(self.merchant_id)
