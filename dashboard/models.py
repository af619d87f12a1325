"""The merchant dashboard's people: who belongs to which merchant and with what role, the
invitations that bring them in, each merchant's team rules, and the audit log of what they did
(docs/guides/dashboard.md), and its owner's application for live mode
(docs/guides/going-live.md)."""

import secrets
from datetime import timedelta

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core import ids
from core.money import Currency
from dashboard import documents, words
from dashboard.roles import Role, roles_with
from payments import pricing
from payments.models import (
    AppendOnlyModel,
    Merchant,
    Network,
    SettlementAccount,
    SettlementAccountType,
)


class Membership(models.Model):
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        related_name="memberships",
    )
    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(_("role"), max_length=10, choices=Role.choices)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("membership")
        verbose_name_plural = _("memberships")
        ordering = ["created_at"]
        constraints = [
            models.UniqueConstraint(fields=["user", "merchant"], name="membership_user_merchant")
        ]

    def __str__(self) -> str:
        return f"{self.user} · {self.merchant_id} · {self.role}"


def invitation_key() -> str:
    return secrets.token_urlsafe(32)


def invitation_expiry():
    return timezone.now() + timedelta(days=settings.DASHBOARD_INVITATION_DAYS)


class Invitation(models.Model):
    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.CASCADE, related_name="invitations"
    )
    email = models.EmailField(_("email"))
    role = models.CharField(_("role"), max_length=10, choices=Role.choices)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("invited by"),
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
    )
    key = models.CharField(max_length=64, unique=True, default=invitation_key, editable=False)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    expires_at = models.DateTimeField(_("expires at"), default=invitation_expiry)
    accepted_at = models.DateTimeField(_("accepted at"), null=True, blank=True)
    # Withdrawn by the team before it was used: its link opens nothing any more, and the row
    # stays for the audit log's sake.
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)

    class Meta:
        verbose_name = _("invitation")
        verbose_name_plural = _("invitations")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.email} → {self.merchant_id}"

    @property
    def is_open(self) -> bool:
        return (
            self.accepted_at is None
            and self.revoked_at is None
            and self.expires_at > timezone.now()
        )


class MerchantSettings(models.Model):
    """The merchant's team rules (security settings, owners only)."""

    merchant = models.OneToOneField(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.CASCADE,
        related_name="dashboard_settings",
        primary_key=True,
    )
    require_two_factor = models.BooleanField(
        _("require two-factor authentication"),
        default=False,
        help_text=_("Members without it are sent to set it up before any other page."),
    )
    # None: the default rule, on once two members may pay out.
    require_second_approver = models.BooleanField(
        _("require a second approver for payout batches"), null=True, blank=True
    )
    # Off: a live key's POST /v1/payouts is refused (api_payouts_disabled).
    api_payouts_enabled = models.BooleanField(_("payouts by API"), default=True)

    class Meta:
        verbose_name = _("team settings")
        verbose_name_plural = _("team settings")

    def __str__(self) -> str:
        return str(self.merchant_id)

    @classmethod
    def of(cls, merchant: Merchant) -> "MerchantSettings":
        found, _created = cls.objects.get_or_create(merchant=merchant)
        return found

    def second_approver_required(self) -> bool:
        """An explicit choice, else on once two members hold the payout right."""
        if self.require_second_approver is not None:
            return self.require_second_approver
        return (
            Membership.objects.filter(
                merchant_id=self.merchant_id, role__in=roles_with("payouts")
            ).count()
            >= 2
        )


class Action(models.TextChoices):
    LOGIN_SUCCEEDED = "login.succeeded", _("signed in")
    LOGIN_FAILED = "login.failed", _("sign-in failed")
    MFA_ACTIVATED = "mfa.activated", _("two-factor activated")
    MFA_DEACTIVATED = "mfa.deactivated", _("two-factor deactivated")
    MEMBER_INVITED = "member.invited", _("member invited")
    MEMBER_JOINED = "member.joined", _("member joined")
    MEMBER_ROLE_CHANGED = "member.role_changed", _("member's role changed")
    MEMBER_REMOVED = "member.removed", _("member removed")
    API_KEY_CREATED = "api_key.created", _("API key created")
    API_KEY_REVOKED = "api_key.revoked", _("API key revoked")
    API_KEY_REVEALED = "api_key.revealed", _("API key revealed")
    WEBHOOK_ENDPOINT_UPDATED = "webhook_endpoint.updated", _("webhook endpoint updated")
    WEBHOOK_SECRET_ROTATED = "webhook_secret.rotated", _("webhook secret rotated")
    REFUND_CREATED = "refund.created", _("refund created")
    PAYOUT_CREATED = "payout.created", _("payout created")
    PAYOUT_BATCH_SUBMITTED = "payout_batch.submitted", _("payout batch submitted")
    PAYOUT_BATCH_APPROVED = "payout_batch.approved", _("payout batch approved")
    PAYOUT_BATCH_REJECTED = "payout_batch.rejected", _("payout batch rejected")
    PAYMENT_LINK_CREATED = "payment_link.created", _("payment link created")
    PAYMENT_LINK_DEACTIVATED = "payment_link.deactivated", _("payment link deactivated")
    PAYMENT_LINK_ACTIVATED = "payment_link.activated", _("payment link activated")
    EVENT_RESENT = "event.resent", _("event resent")
    SETTINGS_UPDATED = "settings.updated", _("settings updated")
    API_PAYOUTS_ENABLED = "api_payouts.enabled", _("payouts by API turned on")
    API_PAYOUTS_DISABLED = "api_payouts.disabled", _("payouts by API turned off")
    # Written by staff, not the merchant's members: a change of the merchant's price plan.
    PRICING_UPDATED = "pricing.updated", _("price plan changed")
    # Whoever added or removed it: a member in the dashboard, or an API key.
    SETTLEMENT_ACCOUNT_ADDED = "settlement_account.added", _("settlement account added")
    SETTLEMENT_ACCOUNT_REMOVED = "settlement_account.removed", _("settlement account removed")
    SETTLEMENT_SCHEDULE_UPDATED = "settlement_schedule.updated", _("settlement schedule changed")
    SETTLEMENT_CREATED = "settlement.created", _("settlement created")
    # The application for live mode: sent by the owner, decided by staff.
    ACTIVATION_SUBMITTED = "activation.submitted", _("application for live mode submitted")
    ACTIVATION_APPROVED = "activation.approved", _("application for live mode approved")
    ACTIVATION_REJECTED = "activation.rejected", _("application for live mode rejected")
    ACTIVATION_CHANGES_REQUESTED = (
        "activation.changes_requested",
        _("changes requested to the application for live mode"),
    )
    # An invitation not yet accepted, mailed again or withdrawn by the team.
    INVITATION_RESENT = "invitation.resent", _("invitation sent again")
    INVITATION_REVOKED = "invitation.revoked", _("invitation revoked")


class AuditEntry(AppendOnlyModel):
    """One thing a person did (or tried) in the dashboard: never changed or deleted (PostgreSQL's
    trigger refuses it, as for the ledger)."""

    APPEND_ONLY = "audit entries"

    created_at = models.DateTimeField(_("when"), default=timezone.now, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )
    email = models.CharField(_("email"), max_length=254, blank=True, default="")
    merchant = models.ForeignKey(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
    )
    mode = models.CharField("mode", max_length=4, blank=True, default="")
    action = models.CharField(_("action"), max_length=40, choices=Action.choices)
    object_id = models.CharField(_("object"), max_length=100, blank=True, default="")
    ip = models.GenericIPAddressField(_("client address"), null=True, blank=True)
    user_agent = models.CharField(_("user agent"), max_length=500, blank=True, default="")
    # What changed, where the object's id does not say it (a price plan's rate, before and
    # after): kept as data and said in the reader's language (details_text).
    details = models.JSONField(_("details"), null=True, blank=True)

    class Meta:
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit entries")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["merchant", "-created_at"], name="audit_merchant_created_idx")
        ]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.action} {self.email}"

    def details_text(self) -> str:
        """The details in words, in the active language ("" without any)."""
        if not self.details:
            return ""
        if self.action == Action.PRICING_UPDATED:
            return pricing.change_words(self.details)
        if self.action in (Action.SETTLEMENT_ACCOUNT_ADDED, Action.SETTLEMENT_ACCOUNT_REMOVED):
            return words.account_change_words(self.details)
        if self.action == Action.SETTLEMENT_SCHEDULE_UPDATED:
            return words.schedule_change_words(self.details)
        if self.action.startswith("activation."):
            return self.details.get("note", "")  # the staff's own words to the merchant
        return ""


class UserLanguage(models.Model):
    """The language a person last used the dashboard in: what is mailed to them when they did
    nothing themselves (a security notice about their team) is written in it."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        verbose_name=_("user"),
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="dashboard_language",
    )
    language = models.CharField(_("language"), max_length=10, choices=settings.LANGUAGES)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("language of a user")
        verbose_name_plural = _("languages of users")

    def __str__(self) -> str:
        return f"{self.user_id}: {self.language}"


class ActivationStatus(models.TextChoices):
    # An application's (feminine in French: "la demande").
    DRAFT = "draft", pgettext_lazy("application", "Draft")
    SUBMITTED = "submitted", pgettext_lazy("application", "Submitted")
    APPROVED = "approved", pgettext_lazy("application", "Approved")
    REJECTED = "rejected", pgettext_lazy("application", "Rejected")
    CHANGES_REQUESTED = "changes_requested", pgettext_lazy("application", "Changes requested")


def activation_id() -> str:
    return ids.new_id("act")


class ActivationApplication(models.Model):
    """A merchant's application for live mode, filled in by its owner (dashboard.activation):
    the business, its representative, its expected volume, the live settlement account its money
    will go to and three documents. draft → submitted → approved | rejected | changes_requested
    (back to the owner, who edits it and submits it again). Staff decide in the admin; approval
    turns the merchant's live mode on.

    The settlement account is typed here while the application is a draft, and becomes a live
    settlement account when it is submitted (held from then, as every new live account is); the
    number typed is then forgotten here, as the account shows only its last four characters."""

    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=activation_id, editable=False
    )
    merchant = models.OneToOneField(
        Merchant, verbose_name=_("merchant"), on_delete=models.CASCADE, related_name="activation"
    )
    status = models.CharField(
        _("status"),
        max_length=20,
        choices=ActivationStatus.choices,
        default=ActivationStatus.DRAFT,
    )
    # The business.
    legal_name = models.CharField(_("legal name"), max_length=200, blank=True, default="")
    rccm_number = models.CharField(_("RCCM number"), max_length=60, blank=True, default="")
    id_nat = models.CharField(_("Id. Nat."), max_length=60, blank=True, default="")
    nif = models.CharField(_("NIF (tax number)"), max_length=60, blank=True, default="")
    address = models.CharField(_("address"), max_length=300, blank=True, default="")
    city = models.CharField(_("city"), max_length=100, blank=True, default="")
    activity = models.CharField(_("activity"), max_length=300, blank=True, default="")
    website = models.URLField(_("website or social page"), max_length=300, blank=True, default="")
    representative_name = models.CharField(
        _("representative's name"), max_length=200, blank=True, default=""
    )
    representative_phone = models.CharField(
        _("representative's phone"),
        max_length=30,
        blank=True,
        default="",
        validators=[
            RegexValidator(
                r"^\+?[0-9][0-9 ]{5,24}[0-9]$",
                _("Digits and spaces, optionally after a +, e.g. +243 81 234 5678."),
            )
        ],
    )
    monthly_volume = models.BigIntegerField(
        _("expected monthly volume (minor units)"), null=True, blank=True
    )
    monthly_volume_currency = models.CharField(
        _("currency of the monthly volume"),
        max_length=3,
        choices=Currency.choices,
        blank=True,
        default="",
    )
    # The settlement account as typed, until the application is submitted.
    account_type = models.CharField(
        _("settlement account"),
        max_length=20,
        choices=SettlementAccountType.choices,
        blank=True,
        default="",
    )
    account_currency = models.CharField(
        _("currency of the settlement account"),
        max_length=3,
        choices=Currency.choices,
        blank=True,
        default="",
    )
    bank_name = models.CharField(_("bank"), max_length=100, blank=True, default="")
    account_holder = models.CharField(_("account holder"), max_length=200, blank=True, default="")
    account_number = models.CharField(_("account number"), max_length=60, blank=True, default="")
    swift = models.CharField("SWIFT/BIC", max_length=20, blank=True, default="")
    account_phone = models.CharField(
        _("mobile money number"), max_length=30, blank=True, default=""
    )
    account_network = models.CharField(
        _("network"), max_length=20, choices=Network.choices, blank=True, default=""
    )
    # The live account made from it when it was submitted.
    settlement_account = models.ForeignKey(
        SettlementAccount,
        verbose_name=_("settlement account"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    # The documents: kept by the default storage, never at an address (dashboard.documents).
    rccm_certificate = models.FileField(
        _("RCCM certificate"), upload_to=documents.storage_name, max_length=200, blank=True
    )
    id_nat_certificate = models.FileField(
        _("Id. Nat. certificate"), upload_to=documents.storage_name, max_length=200, blank=True
    )
    representative_id = models.FileField(
        _("representative's identity document"),
        upload_to=documents.storage_name,
        max_length=200,
        blank=True,
    )
    # The staff's words to the owner: why it was rejected, or what to change.
    decision_note = models.TextField(_("reason or note"), blank=True, default="")
    # The language the owner submitted it in: the decisions' mails are written in it.
    language = models.CharField(_("language"), max_length=8, blank=True, default="")
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)
    submitted_at = models.DateTimeField(_("submitted at"), null=True, blank=True)
    submitted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("submitted by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("decided by"),
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )

    DOCUMENTS = ("rccm_certificate", "id_nat_certificate", "representative_id")

    class Meta:
        verbose_name = _("application for live mode")
        verbose_name_plural = _("applications for live mode")
        ordering = ["submitted_at", "created_at"]
        indexes = [
            models.Index(fields=["status", "submitted_at"], name="activation_queue_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.legal_name or self.merchant_id} ({self.get_status_display()})"

    @property
    def editable(self) -> bool:
        """Whether its owner may change it: a draft, or one sent back with changes requested."""
        return self.status in (ActivationStatus.DRAFT, ActivationStatus.CHANGES_REQUESTED)


# --- Notifications (docs/guides/notifications.md) ------------------------------------------


class NoticeKind(models.TextChoices):
    """What a member may be told of (the page's `data-notify`), security notices aside."""

    PAYMENT = "payment", _("Each payment received")
    SUMMARY = "summary", _("A daily summary at 07:00")
    PAYOUT = "payout", _("Payouts and settlements paid or failed")
    BATCH = "batch", _("Payout batches awaiting approval")


class NotificationPreference(models.Model):
    """A member's choices: by e-mail and/or SMS for each kind, and the phone (E.164) the SMS go
    to. A member without a row has the defaults below."""

    membership = models.OneToOneField(
        Membership,
        verbose_name=_("membership"),
        on_delete=models.CASCADE,
        related_name="notification_preference",
    )
    phone = models.CharField(_("phone"), max_length=16, blank=True, default="")
    payment_email = models.BooleanField(default=False)
    payment_sms = models.BooleanField(default=False)
    summary_email = models.BooleanField(default=True)
    summary_sms = models.BooleanField(default=False)
    payout_email = models.BooleanField(default=True)
    payout_sms = models.BooleanField(default=False)
    batch_email = models.BooleanField(default=True)
    batch_sms = models.BooleanField(default=False)

    class Meta:
        verbose_name = _("notification preference")
        verbose_name_plural = _("notification preferences")

    def __str__(self) -> str:
        return f"{self.membership_id} · {self.phone or '-'}"

    def wants(self, kind: str, channel: str) -> bool:
        return getattr(self, f"{kind}_{channel}")


class Notice(models.Model):
    """One thing to tell a merchant's team (a payment received, a payout or settlement paid or
    failed, a batch awaiting approval), written in the transaction of the change it tells of.
    The beat job sends a merchant's unsent notices of a kind and mode as one message per
    member, at most one every NOTIFY_GROUP_SECONDS: a burst is one message, not one per row."""

    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.CASCADE, related_name="+"
    )
    livemode = models.BooleanField(_("live mode"))
    kind = models.CharField(_("kind"), max_length=10, choices=NoticeKind.choices)
    object_id = models.CharField(_("object"), max_length=40)
    status = models.CharField(_("status"), max_length=20, blank=True, default="")
    amount = models.BigIntegerField(_("amount (minor units)"), null=True, blank=True)
    currency = models.CharField(_("currency"), max_length=3, blank=True, default="")
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    sent_at = models.DateTimeField(_("sent at"), null=True, blank=True)

    class Meta:
        verbose_name = _("notice")
        verbose_name_plural = _("notices")
        indexes = [
            models.Index(
                fields=["created_at"],
                condition=models.Q(sent_at__isnull=True),
                name="notice_unsent_idx",
            ),
            models.Index(
                fields=["merchant", "livemode", "kind", "-sent_at"],
                condition=models.Q(sent_at__isnull=False),
                name="notice_last_sent_idx",
            ),
            models.Index(
                fields=["sent_at"],
                condition=models.Q(sent_at__isnull=False),
                name="notice_sent_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.object_id} ({self.merchant_id})"


class DailySummary(models.Model):
    """A merchant's summary of one day (its own calendar day), sent once: the row is the claim."""

    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.CASCADE, related_name="+"
    )
    day = models.DateField(_("day"))
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        verbose_name = _("daily summary")
        verbose_name_plural = _("daily summaries")
        constraints = [
            models.UniqueConstraint(fields=["merchant", "day"], name="daily_summary_once")
        ]

    def __str__(self) -> str:
        return f"{self.merchant_id} {self.day}"
