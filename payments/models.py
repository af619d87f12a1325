"""Merchants, API keys, charges, refunds, payouts, the ledger, the networks' state and
idempotency records.

Models hold data and constraints only; every change of money state goes through services/.
"""

import base64
import secrets

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Abs
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from core import ids
from core.api import idempotency
from core.money import Currency
from payments.providers.airtel import AirtelMoney
from payments.providers.mpesa import VodacomMpesa
from payments.providers.orange import OrangeMoney


class Mode(models.TextChoices):
    TEST = "test", "Test"
    LIVE = "live", "Live"


class Network(models.TextChoices):
    """The mobile money networks; each one's display name is declared by its adapter."""

    AIRTEL_MONEY = "AIRTEL_MONEY", AirtelMoney.label
    VODACOM_MPESA = "VODACOM_MPESA", VodacomMpesa.label
    ORANGE_MONEY = "ORANGE_MONEY", OrangeMoney.label


class PaymentMethod(models.TextChoices):
    MOBILE_MONEY = "mobile_money", "Mobile money"  # the same in French
    CARD = "card", _("Card")


class ChargeStatus(models.TextChoices):
    PENDING = "pending", pgettext_lazy("status", "Pending")
    SUCCEEDED = "succeeded", pgettext_lazy("status", "Succeeded")
    FAILED = "failed", pgettext_lazy("status", "Failed")
    DECLINED = "declined", pgettext_lazy("status", "Declined")


class RefundStatus(models.TextChoices):
    PENDING = "pending", pgettext_lazy("status", "Pending")
    SUCCEEDED = "succeeded", pgettext_lazy("status", "Succeeded")
    FAILED = "failed", pgettext_lazy("status", "Failed")


class PayoutStatus(models.TextChoices):
    PENDING = "pending", pgettext_lazy("status", "Pending")
    SUCCEEDED = "succeeded", pgettext_lazy("status", "Succeeded")
    FAILED = "failed", pgettext_lazy("status", "Failed")


class LedgerType(models.TextChoices):
    CHARGE = "charge", _("Charge")
    REFUND = "refund", _("Refund")
    REFUND_FAILURE = "refund_failure", _("Refund failure")
    PAYOUT = "payout", _("Payout")
    PAYOUT_FAILURE = "payout_failure", _("Payout failure")
    LATE_PAYMENT = "late_payment", _("Late payment")
    SETTLEMENT = "settlement", _("Settlement")
    SETTLEMENT_FAILURE = "settlement_failure", _("Settlement failure")


class SettlementStatus(models.TextChoices):
    PENDING = "pending", pgettext_lazy("status", "Pending")
    IN_TRANSIT = "in_transit", pgettext_lazy("status", "In transit")
    PAID = "paid", pgettext_lazy("status", "Paid")
    FAILED = "failed", pgettext_lazy("status", "Failed")


class SettlementAccountType(models.TextChoices):
    BANK_ACCOUNT = "bank_account", _("Bank account")
    MOBILE_MONEY = "mobile_money", _("Mobile money")


class SettlementMethod(models.TextChoices):
    MANUAL = "manual", _("On demand")
    AUTOMATIC = "automatic", _("By schedule")


class RefundReason(models.TextChoices):
    DUPLICATE = "duplicate", _("Duplicate")
    FRAUDULENT = "fraudulent", _("Fraudulent")
    REQUESTED_BY_CUSTOMER = "requested_by_customer", _("Requested by customer")
    # Set by the service only: a payment made after its charge failed, or that could not be
    # accepted, is given back in full.
    LATE_PAYMENT = "late_payment", _("Late payment")


# The reasons a merchant may give (late_payment is the service's own).
MERCHANT_REFUND_REASONS = tuple(r for r in RefundReason.values if r != RefundReason.LATE_PAYMENT)


def new_webhook_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


# The Democratic Republic of the Congo's two time zones (IANA names): Kinshasa's in the west,
# Lubumbashi's in the east.
TIME_ZONES = [
    ("Africa/Kinshasa", _("Kinshasa (UTC+1)")),
    ("Africa/Lubumbashi", _("Lubumbashi (UTC+2)")),
]


class Merchant(models.Model):
    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.merchant_id, editable=False
    )
    name = models.CharField(_("name"), max_length=200)
    live_approved = models.BooleanField(
        _("approved for live mode"),
        default=False,
        help_text=_("Approved by staff to take live payments."),
    )
    card_rail_enabled = models.BooleanField(
        _("card payments"), default=True, help_text=_("Card payments enabled for this merchant.")
    )
    # How the merchant's customers reach the merchant: shown on every hosted page.
    support_email = models.EmailField(_("support email"), blank=True, default="")
    support_phone = models.CharField(
        _("support phone"),
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
    # Where the merchant's day begins and ends: its schedules' cutoffs, its notices, the times
    # its pages and downloads for people show (docs/guides/dashboard.md).
    time_zone = models.CharField(
        _("time zone"),
        max_length=40,
        choices=TIME_ZONES,
        default="Africa/Kinshasa",
        db_default="Africa/Kinshasa",
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("merchant")
        verbose_name_plural = _("merchants")
        ordering = ["-created_at"]
        # Staff who review the applications for live mode (the dashboard's): see their
        # documents, approve (which sets live_approved), reject or ask for changes.
        permissions = [("review_activation", _("Can review applications for live mode"))]

    def __str__(self) -> str:
        return f"{self.name} ({self.id})"


class PricingKind(models.TextChoices):
    CHARGE = "charge", _("Collection")
    PAYOUT = "payout", _("Payout")
    SETTLEMENT = "settlement", _("Settlement")


class PriceRate(models.Model):
    """One rate of a merchant's price plan, over the default plan of the settings
    (PRICING_DEFAULT): a rate of the same kind, method, network and currency replaces the
    default's. Blank method and network are the wider rates (payments.pricing picks the most
    specific). Changed by staff with payments.change_pricing only, audited."""

    merchant = models.ForeignKey(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.CASCADE,
        related_name="price_rates",
        db_index=False,  # price_rate_once begins with it
    )
    kind = models.CharField(_("kind"), max_length=20, choices=PricingKind.choices)
    payment_method = models.CharField(
        _("payment method"),
        max_length=20,
        choices=PaymentMethod.choices,
        blank=True,
        default="",
        help_text=_("Blank: every method."),
    )
    network = models.CharField(
        _("network"),
        max_length=20,
        choices=Network.choices,
        blank=True,
        default="",
        help_text=_("Blank: every network of the method."),
    )
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    rate_bp = models.PositiveIntegerField(
        _("rate (basis points)"), help_text=_("250 is 2.50 % of the amount.")
    )
    fixed = models.BigIntegerField(
        _("fixed fee (minor units)"),
        default=0,
        help_text=_("Cents or centimes, added to the rate."),
    )
    available_after_days = models.PositiveSmallIntegerField(
        _("available after (days)"),
        default=0,
        help_text=_("Collections only: days before a payment's net is available."),
    )
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)
    updated_by = models.CharField(_("updated by"), max_length=150, blank=True, default="")

    class Meta:
        verbose_name = _("price rate")
        verbose_name_plural = _("price rates")
        ordering = ["merchant", "kind", "currency", "payment_method", "network"]
        permissions = [("change_pricing", _("Can change a merchant's price plan"))]
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "kind", "payment_method", "network", "currency"],
                name="price_rate_once",
            ),
            models.CheckConstraint(
                condition=models.Q(rate_bp__lte=10000), name="price_rate_bp_at_most_all"
            ),
            models.CheckConstraint(condition=models.Q(fixed__gte=0), name="price_rate_fixed"),
            models.CheckConstraint(
                condition=models.Q(kind="charge") | models.Q(available_after_days=0),
                name="price_rate_delay_charges_only",
            ),
            models.CheckConstraint(
                condition=models.Q(network="") | ~models.Q(payment_method=""),
                name="price_rate_network_has_method",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.merchant_id} {self.kind} {self.currency}"


KEY_NAME_MAX = 60


class ApiKey(models.Model):
    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.CASCADE, related_name="api_keys"
    )
    mode = models.CharField("mode", max_length=4, choices=Mode.choices)
    # What the key is for, in the merchant's words ("Shop website", "Accounting"): among several
    # keys of a mode, the one to revoke is found by it rather than by its prefix.
    name = models.CharField(
        _("name"),
        max_length=KEY_NAME_MAX,
        blank=True,
        default="",
        help_text=_("What the key is for, e.g. Shop website."),
    )
    prefix = models.CharField(
        _("prefix"), max_length=40, help_text=_("Shown to identify the key; not secret.")
    )
    key_hash = models.CharField(_("key hash"), max_length=64, unique=True, editable=False)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(_("last used at"), null=True, blank=True, editable=False)
    revoked_at = models.DateTimeField(_("revoked at"), null=True, blank=True)
    # The dashboard member who made it (None: staff, a command, or not known): an owner sees
    # who holds each live key, and a payout batch made with it is not theirs to approve alone.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        verbose_name=_("created by"),
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        editable=False,
    )

    class Meta:
        verbose_name = _("API key")
        verbose_name_plural = _("API keys")
        ordering = ["-created_at"]
        # A key moves the merchant's money: issuing one is a permission of its own, which
        # neither seeing merchants nor changing them gives.
        permissions = [("issue_apikey", "Can issue API keys")]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix})" if self.name else self.prefix

    @property
    def livemode(self) -> bool:
        return self.mode == Mode.LIVE

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None


class Charge(models.Model):
    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.charge_id, editable=False
    )
    merchant = models.ForeignKey(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.PROTECT,
        related_name="charges",
        db_index=False,  # charge_list_idx begins with it (migration 0013)
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    amount = models.BigIntegerField(_("amount (minor units)"))
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    payment_method = models.CharField(
        _("payment method"),
        max_length=20,
        choices=PaymentMethod.choices,
        default=PaymentMethod.MOBILE_MONEY,
    )
    phone = models.CharField(_("phone"), max_length=20, blank=True, default="")
    network = models.CharField(
        _("network"), max_length=20, choices=Network.choices, blank=True, default=""
    )
    status = models.CharField(
        _("status"), max_length=10, choices=ChargeStatus.choices, default=ChargeStatus.PENDING
    )
    description = models.TextField("description", blank=True, default="")
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    callback_url = models.URLField(_("callback URL"), max_length=2000, blank=True, default="")
    return_url = models.URLField(_("return URL"), max_length=2000, blank=True, default="")
    failure_code = models.CharField(_("failure code"), max_length=40, blank=True, default="")
    failure_message = models.CharField(_("failure message"), max_length=500, blank=True, default="")
    amount_refunded = models.BigIntegerField(_("amount refunded (minor units)"), default=0)
    # The rate of the merchant's plan in force when the charge was created (payments.pricing):
    # its fee once it succeeds. Null on charges created before fees: no fee.
    fee_rate_bp = models.PositiveIntegerField(_("fee rate (basis points)"), null=True, blank=True)
    fee_fixed = models.BigIntegerField(_("fixed fee (minor units)"), null=True, blank=True)
    fee_available_after_days = models.PositiveSmallIntegerField(
        _("available after (days)"), null=True, blank=True
    )
    checkout_session = models.ForeignKey(
        "checkout.CheckoutSession",
        verbose_name=_("checkout session"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="charges",
        db_index=False,  # charge_checkout_session_idx: only the charges that have one
    )
    # Provider side, for staff and for polling; never shown in the API.
    provider = models.CharField(_("provider"), max_length=40, blank=True, default="")
    provider_reference = models.CharField(
        _("provider reference"), max_length=100, blank=True, default=""
    )
    provider_attempt = models.CharField(
        _("provider attempt"),
        max_length=64,
        blank=True,
        default="",
        help_text=_("transaction_uuid of the card attempt."),
    )
    provider_raw = models.JSONField(_("provider answers"), default=list, blank=True)
    next_action = models.JSONField(
        _("next action"), null=True, blank=True, help_text=_("Signed card form, while pending.")
    )
    provider_requested_at = models.DateTimeField(
        _("sent to the provider at"),
        null=True,
        blank=True,
        help_text=_("When the payment request was handed to the provider."),
    )
    check_count = models.PositiveIntegerField(_("status checks"), default=0)
    next_check_at = models.DateTimeField(_("next check at"), null=True, blank=True)
    finalized_at = models.DateTimeField(_("final at"), null=True, blank=True)
    # Reconciliation: a charge failed by our own clock is still asked about until
    # reconcile_until; reconcile_next_at is the next due check (null: not reconciling).
    reconcile_until = models.DateTimeField(_("reconciled until"), null=True, blank=True)
    reconcile_next_at = models.DateTimeField(_("next reconciliation at"), null=True, blank=True)
    reconcile_count = models.PositiveIntegerField(_("reconciliation checks"), default=0)
    late_payment_at = models.DateTimeField(
        _("late payment at"),
        null=True,
        blank=True,
        help_text=_("When the operator reported a payment we could not accept (refunded in full)."),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("charge")
        verbose_name_plural = _("charges")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["merchant", "livemode", "-created_at", "-id"], name="charge_list_idx"
            ),
            models.Index(
                fields=["reconcile_next_at"],
                name="charge_reconcile_due_idx",
                condition=models.Q(reconcile_next_at__isnull=False),
            ),
            models.Index(
                fields=["merchant", "livemode", "status", "-created_at", "-id"],
                name="charge_list_status_idx",
            ),
            models.Index(
                fields=["merchant", "livemode", "network", "-created_at", "-id"],
                name="charge_list_network_idx",
            ),
            # The pending charges' next status checks, and the mobile money charges whose prompt
            # is not sent yet (the sweeps'). Each names a condition that the statements taking
            # one charge by id never state (a check to come; the rail), so the planner cannot
            # read them for such a statement instead of the key: statistics that sampled no
            # pending charge make a partial index of pending charges look empty, and a claim
            # planned on it read every pending entry to find its own (migration 0020).
            models.Index(
                fields=["next_check_at"],
                name="charge_check_due_idx",
                condition=models.Q(status="pending", next_check_at__isnull=False),
            ),
            models.Index(
                fields=["created_at"],
                name="charge_unsent_idx",
                condition=models.Q(
                    status="pending",
                    payment_method="mobile_money",
                    provider_requested_at__isnull=True,
                ),
            ),
            # A session's charges; a charge made through the API (most of them) has no session
            # and is not in it.
            models.Index(
                fields=["checkout_session"],
                name="charge_checkout_session_idx",
                condition=models.Q(checkout_session__isnull=False),
            ),
            # The dashboard's search by phone number and by operator reference (migration 0019,
            # which also builds a trigram index of the description on PostgreSQL).
            models.Index(
                fields=["merchant", "livemode", "phone", "created_at", "id"],
                name="charge_search_phone_idx",
                condition=~models.Q(phone=""),
            ),
            models.Index(
                fields=["merchant", "livemode", "provider_reference"],
                name="charge_search_reference_idx",
                condition=~models.Q(provider_reference=""),
            ),
            # The recent outcomes per network that tell whether it is degraded.
            models.Index(
                fields=["livemode", "finalized_at"],
                name="charge_mm_finalized_idx",
                condition=models.Q(payment_method="mobile_money", finalized_at__isnull=False),
            ),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="charge_amount_positive"),
            models.CheckConstraint(
                condition=models.Q(amount_refunded__gte=0)
                & models.Q(amount_refunded__lte=models.F("amount")),
                name="charge_refunded_within_amount",
            ),
        ]

    def __str__(self) -> str:
        return self.id

    @property
    def amount_refundable(self) -> int:
        return self.amount - self.amount_refunded


class Refund(models.Model):
    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.refund_id, editable=False
    )
    charge = models.ForeignKey(
        Charge, verbose_name=_("charge"), on_delete=models.PROTECT, related_name="refunds"
    )
    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.PROTECT, related_name="refunds"
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    amount = models.BigIntegerField(_("amount (minor units)"))
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    status = models.CharField(
        _("status"), max_length=10, choices=RefundStatus.choices, default=RefundStatus.PENDING
    )
    reason = models.CharField(
        _("reason"), max_length=30, choices=RefundReason.choices, blank=True, default=""
    )
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    failure_code = models.CharField(_("failure code"), max_length=40, blank=True, default="")
    failure_message = models.CharField(_("failure message"), max_length=500, blank=True, default="")
    provider_reference = models.CharField(
        _("provider reference"), max_length=100, blank=True, default=""
    )
    # Empty: the refund gives back the charge's own payment (its provider_reference), and counts
    # in the charge's amount_refunded. Set: it gives back another payment the provider took for
    # the charge (a second card attempt paid, a second mobile money transaction), a late payment
    # that never counts in amount_refunded (docs/architecture/money.md).
    payment_reference = models.CharField(
        _("payment given back"),
        max_length=100,
        blank=True,
        default="",
        help_text=_(
            "The provider's id of another payment of the charge that this refund gives back; "
            "empty for a refund of the charge's own payment."
        ),
    )
    provider_raw = models.JSONField(_("provider answers"), default=list, blank=True)
    provider_requested_at = models.DateTimeField(
        _("sent to the provider at"),
        null=True,
        blank=True,
        help_text=_("When the refund was handed to the provider."),
    )
    check_count = models.PositiveIntegerField(_("status checks"), default=0)
    next_check_at = models.DateTimeField(_("next check at"), null=True, blank=True)
    finalized_at = models.DateTimeField(_("final at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("refund")
        verbose_name_plural = _("refunds")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["charge", "-created_at", "-id"], name="refund_charge_idx"),
            # Pending refunds' next checks; not a condition a statement by id states (see Charge).
            models.Index(
                fields=["next_check_at"],
                name="refund_check_due_idx",
                condition=models.Q(status="pending", next_check_at__isnull=False),
            ),
            models.Index(
                fields=["merchant", "livemode", "-created_at", "-id"], name="refund_list_idx"
            ),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="refund_amount_positive"),
            # Another payment of a charge is given back once: a second refund of it is made only
            # once the first has failed (staff giving it back again).
            models.UniqueConstraint(
                fields=["charge", "payment_reference"],
                condition=~models.Q(payment_reference="") & ~models.Q(status="failed"),
                name="refund_other_payment_once",
            ),
        ]

    def __str__(self) -> str:
        return self.id

    @property
    def of_other_payment(self) -> bool:
        """Whether it gives back another payment of its charge (not counted in the charge's
        amount_refunded) rather than the charge's own."""
        return bool(self.payment_reference)

    @property
    def operator_reference(self) -> str:
        """What the refund object calls its operator reference: the payment it gives back when
        that is another payment of the charge, else the provider's id of the refund itself
        (empty until known)."""
        return self.payment_reference or self.provider_reference


class ExtraPaymentStatus(models.TextChoices):
    REPORTED = "reported", _("Reported, being confirmed")
    CONFIRMED = "confirmed", _("Confirmed, given back")
    UNCONFIRMED = "unconfirmed", _("Not confirmed by the operator")


class ExtraPayment(models.Model):
    """A payment the provider reports for a charge besides the one that stands (the payment
    that made the charge succeed, or the late payment of a charge that did not): another card
    attempt paid in a tab left open, a second mobile money transaction. Recorded once per
    provider reference; once the provider confirms it, it is given back in full (`refund`, the
    first refund of it, which carries its ledger rows). Shown to staff with the answers. One
    reported by an operator's callback is asked about again while the operator's answers say
    nothing, for RECONCILIATION_WINDOW from when it was reported (`next_check_at`, swept by
    charges_extra_payments_check_due)."""

    charge = models.ForeignKey(
        Charge,
        verbose_name=_("charge"),
        on_delete=models.PROTECT,
        related_name="extra_payments",
        db_index=False,  # extra_payment_once begins with it
    )
    reference = models.CharField(_("provider reference"), max_length=100)
    status = models.CharField(
        _("status"),
        max_length=12,
        choices=ExtraPaymentStatus.choices,
        default=ExtraPaymentStatus.REPORTED,
    )
    answers = models.JSONField(_("provider answers"), default=list, blank=True)
    refund = models.OneToOneField(
        Refund,
        verbose_name=_("refund"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="extra_payment",
    )
    # The operator's answers that did not confirm it (the step of its backoff), and when it is
    # asked about next (None: not asked again by the sweep).
    check_count = models.PositiveIntegerField(_("status checks"), default=0)
    next_check_at = models.DateTimeField(_("next check at"), null=True, blank=True)
    created_at = models.DateTimeField(_("reported at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("extra payment")
        verbose_name_plural = _("extra payments")
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(
                fields=["next_check_at"],
                name="extra_payment_check_due_idx",
                condition=models.Q(next_check_at__isnull=False),
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["charge", "reference"], name="extra_payment_once"),
            models.CheckConstraint(condition=~models.Q(reference=""), name="extra_payment_named"),
        ]

    def __str__(self) -> str:
        return self.reference


class Payout(models.Model):
    """Money sent from the merchant's balance to a mobile money wallet. Its amount is reserved
    (a ledger row) when it is written; a failed payout gives it back."""

    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.payout_id, editable=False
    )
    merchant = models.ForeignKey(
        Merchant, verbose_name=_("merchant"), on_delete=models.PROTECT, related_name="payouts"
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    amount = models.BigIntegerField(_("amount (minor units)"))
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    phone = models.CharField(_("phone"), max_length=20)
    network = models.CharField(_("network"), max_length=20, choices=Network.choices)
    # What the payout costs by the merchant's plan when it was created, reserved with its amount
    # and given back with it when it fails.
    fee = models.BigIntegerField(_("fee (minor units)"), default=0, db_default=0)
    status = models.CharField(
        _("status"), max_length=10, choices=PayoutStatus.choices, default=PayoutStatus.PENDING
    )
    description = models.TextField("description", blank=True, default="")
    metadata = models.JSONField(_("metadata"), default=dict, blank=True)
    callback_url = models.URLField(_("callback URL"), max_length=2000, blank=True, default="")
    failure_code = models.CharField(_("failure code"), max_length=40, blank=True, default="")
    failure_message = models.CharField(_("failure message"), max_length=500, blank=True, default="")
    provider = models.CharField(_("provider"), max_length=40, blank=True, default="")
    provider_reference = models.CharField(
        _("provider reference"), max_length=100, blank=True, default=""
    )
    provider_raw = models.JSONField(_("provider answers"), default=list, blank=True)
    provider_requested_at = models.DateTimeField(
        _("sent to the provider at"),
        null=True,
        blank=True,
        help_text=_("When the payout was handed to the operator (once)."),
    )
    check_count = models.PositiveIntegerField(_("status checks"), default=0)
    next_check_at = models.DateTimeField(_("next check at"), null=True, blank=True)
    finalized_at = models.DateTimeField(_("final at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("payout")
        verbose_name_plural = _("payouts")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["merchant", "livemode", "-created_at", "-id"], name="payout_list_idx"
            ),
            # Pending payouts' next checks; not a condition a statement by id states (see Charge).
            models.Index(
                fields=["next_check_at"],
                name="payout_check_due_idx",
                condition=models.Q(status="pending", next_check_at__isnull=False),
            ),
        ]
        constraints = [
            models.CheckConstraint(condition=models.Q(amount__gt=0), name="payout_amount_positive"),
        ]

    def __str__(self) -> str:
        return self.id


class SettlementAccount(models.Model):
    """Where a merchant's settlements go: its bank account or its own mobile money wallet, per
    mode and currency. The full account number is kept for the bank transfer files and never
    shown again (last4). A new live account is held until available_from. Removing an account
    keeps its row (settlements refer to it) with removed_at set."""

    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.settlement_account_id, editable=False
    )
    merchant = models.ForeignKey(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.PROTECT,
        related_name="settlement_accounts",
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    type = models.CharField("type", max_length=20, choices=SettlementAccountType.choices)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    bank_name = models.CharField(_("bank"), max_length=100, blank=True, default="")
    account_holder = models.CharField(_("account holder"), max_length=200)
    account_number = models.CharField(
        _("account number"),
        max_length=34,
        blank=True,
        default="",
        help_text=_("Letters and digits, without spaces."),
    )
    swift = models.CharField("SWIFT/BIC", max_length=11, blank=True, default="")
    phone = models.CharField(_("phone"), max_length=20, blank=True, default="")
    network = models.CharField(
        _("network"), max_length=20, choices=Network.choices, blank=True, default=""
    )
    is_default = models.BooleanField(_("default"), default=False)
    available_from = models.DateTimeField(
        _("available from"), help_text=_("Settlements wait until then (a new live account).")
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    removed_at = models.DateTimeField(_("removed at"), null=True, blank=True)

    class Meta:
        verbose_name = _("settlement account")
        verbose_name_plural = _("settlement accounts")
        ordering = ["created_at", "id"]
        indexes = [
            models.Index(
                fields=["merchant", "livemode", "currency", "created_at"],
                name="settlement_account_list_idx",
            ),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "livemode", "currency"],
                condition=models.Q(is_default=True, removed_at__isnull=True),
                name="settlement_account_one_default",
            ),
        ]

    def __str__(self) -> str:
        return self.id

    @property
    def last4(self) -> str:
        number = self.account_number if self.type == "bank_account" else self.phone
        return number[-4:]


class Settlement(models.Model):
    """Available balance moved to a merchant's settlement account: amount and fee reserved (a
    ledger row) when it is written, given back if it fails. A mobile money account is paid
    through the payout rail, at most once; a bank account by staff, through a bank transfer
    file. Automatic settlements are made once per period of the merchant's schedule."""

    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.settlement_id, editable=False
    )
    merchant = models.ForeignKey(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.PROTECT,
        related_name="settlements",
        db_index=False,  # settlement_list_idx begins with it
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    amount = models.BigIntegerField(_("amount (minor units)"))
    fee = models.BigIntegerField(_("fee (minor units)"), default=0)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    account = models.ForeignKey(
        SettlementAccount,
        verbose_name=_("settlement account"),
        on_delete=models.PROTECT,
        related_name="settlements",
    )
    method = models.CharField(
        _("method"),
        max_length=10,
        choices=SettlementMethod.choices,
        default=SettlementMethod.MANUAL,
    )
    # The schedule's period an automatic settlement is for (2026-12-07, 2026-W49): one each.
    period = models.CharField(_("period"), max_length=20, blank=True, default="")
    status = models.CharField(
        _("status"),
        max_length=12,
        choices=SettlementStatus.choices,
        default=SettlementStatus.PENDING,
    )
    reference = models.CharField(
        _("reference"),
        max_length=40,
        help_text=_("What the merchant finds on its bank or wallet statement."),
    )
    failure_code = models.CharField(_("failure code"), max_length=40, blank=True, default="")
    failure_message = models.CharField(_("failure message"), max_length=500, blank=True, default="")
    provider = models.CharField(_("provider"), max_length=40, blank=True, default="")
    provider_reference = models.CharField(
        _("provider reference"), max_length=100, blank=True, default=""
    )
    provider_raw = models.JSONField(_("provider answers"), default=list, blank=True)
    provider_requested_at = models.DateTimeField(
        _("sent to the provider at"),
        null=True,
        blank=True,
        help_text=_("When it was handed on: to the operator, or in a bank transfer file."),
    )
    bank_file = models.CharField(_("bank transfer file"), max_length=40, blank=True, default="")
    exported_by = models.CharField(_("exported by"), max_length=150, blank=True, default="")
    arrival_estimate = models.DateTimeField(_("expected by"), null=True, blank=True)
    check_count = models.PositiveIntegerField(_("status checks"), default=0)
    next_check_at = models.DateTimeField(_("next check at"), null=True, blank=True)
    finalized_at = models.DateTimeField(_("final at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("settlement")
        verbose_name_plural = _("settlements")
        ordering = ["-created_at", "-id"]
        permissions = [("send_settlement", _("Can send bank settlements and mark them paid"))]
        indexes = [
            models.Index(
                fields=["merchant", "livemode", "-created_at", "-id"], name="settlement_list_idx"
            ),
            models.Index(
                fields=["next_check_at"],
                name="settlement_check_due_idx",
                condition=models.Q(
                    status__in=["pending", "in_transit"], next_check_at__isnull=False
                ),
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(amount__gt=0), name="settlement_amount_positive"
            ),
            models.CheckConstraint(condition=models.Q(fee__gte=0), name="settlement_fee"),
            models.UniqueConstraint(
                fields=["merchant", "livemode", "currency", "period"],
                condition=~models.Q(period=""),
                name="settlement_once_per_period",
            ),
        ]

    def __str__(self) -> str:
        return self.id


class SettlementInterval(models.TextChoices):
    MANUAL = "manual", _("On demand")
    DAILY = "daily", _("Every day")
    WEEKLY = "weekly", _("Every week")


class SettlementSchedule(models.Model):
    """How a merchant's available balance of one mode and currency is settled: on demand only
    (no row, or manual), or automatically at the cutoff of each day or of a weekday (00:00 in
    the merchant's time zone) when it is at least `minimum`."""

    merchant = models.ForeignKey(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.CASCADE,
        related_name="settlement_schedules",
        db_index=False,  # settlement_schedule_once begins with it
    )
    livemode = models.BooleanField(_("live mode"), default=False)
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    interval = models.CharField(
        _("interval"),
        max_length=10,
        choices=SettlementInterval.choices,
        default=SettlementInterval.MANUAL,
    )
    weekday = models.PositiveSmallIntegerField(
        _("weekday"), default=0, help_text=_("Weekly: 0 is Monday, 6 Sunday.")
    )
    minimum = models.BigIntegerField(
        _("minimum (minor units)"),
        default=0,
        help_text=_("No automatic settlement of less than this."),
    )
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)

    class Meta:
        verbose_name = _("settlement schedule")
        verbose_name_plural = _("settlement schedules")
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "livemode", "currency"], name="settlement_schedule_once"
            ),
            models.CheckConstraint(
                condition=models.Q(weekday__lte=6), name="settlement_schedule_weekday"
            ),
            models.CheckConstraint(
                condition=models.Q(minimum__gte=0), name="settlement_schedule_minimum"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.merchant_id} {self.currency} {self.interval}"


class SettledEntry(models.Model):
    """A balance transaction an automatic settlement paid out: each one in one settlement at
    most (the ledger's own rows are never changed)."""

    entry = models.OneToOneField(
        "LedgerEntry",
        primary_key=True,
        on_delete=models.PROTECT,
        related_name="settled",
        verbose_name=_("balance transaction"),
    )
    settlement = models.ForeignKey(
        Settlement,
        on_delete=models.PROTECT,
        related_name="entries",
        verbose_name=_("settlement"),
    )

    class Meta:
        verbose_name = _("settled balance transaction")
        verbose_name_plural = _("settled balance transactions")

    def __str__(self) -> str:
        return f"{self.entry_id} in {self.settlement_id}"


class AppendOnlyQuerySet(models.QuerySet):
    """Rows of money's history: written once, never updated or deleted (PostgreSQL's triggers
    refuse it too, whoever sends the statement)."""

    def update(self, **kwargs):
        raise TypeError(f"{self.model.APPEND_ONLY} are never updated")

    def delete(self):
        raise TypeError(f"{self.model.APPEND_ONLY} are never deleted")


class AppendOnlyModel(models.Model):
    APPEND_ONLY = "rows"

    objects = AppendOnlyQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise TypeError(f"{self.APPEND_ONLY} are never updated")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise TypeError(f"{self.APPEND_ONLY} are never deleted")


class LedgerEntry(AppendOnlyModel):
    """One movement of a merchant's money: append-only, written by the same locked state change
    that causes it. A balance is the sum of these rows, never a counter edited in place.
    Each source moves money of a given type at most once (the unique constraint)."""

    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.balance_transaction_id, editable=False
    )
    merchant = models.ForeignKey(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.PROTECT,
        related_name="ledger",
        db_index=False,  # ledger_list_idx and ledger_epoch_idx begin with it
    )
    livemode = models.BooleanField(_("live mode"))
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    type = models.CharField("type", max_length=20, choices=LedgerType.choices)
    amount = models.BigIntegerField(
        _("amount (minor units)"), help_text=_("Signed, in minor units.")
    )
    # What the row charges (signed: negative where a failure gives a fee back); the balance moves
    # by amount - fee, its net. 0 on rows written before fees (db_default: added without
    # rewriting the table).
    fee = models.BigIntegerField(_("fee (minor units)"), default=0, db_default=0)
    # When its net is available: later than created_at only for a charge whose plan delays it.
    # Null on rows written before fees, which are available from their creation.
    available_on = models.DateTimeField(_("available on"), null=True, blank=True)
    source = models.CharField(
        "source", max_length=40, help_text=_("The charge, refund or payout id.")
    )
    charge = models.ForeignKey(
        Charge,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("charge"),
    )
    refund = models.ForeignKey(
        Refund,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("refund"),
    )
    payout = models.ForeignKey(
        Payout,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("payout"),
    )
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)
    epoch = models.PositiveIntegerField(
        _("epoch"),
        default=0,
        editable=False,
        help_text=_(
            "How many balance checkpoints its merchant, mode and currency had when it was "
            "written: the next one adds it up."
        ),
    )

    APPEND_ONLY = "ledger rows"

    class Meta:
        verbose_name = _("ledger entry")
        verbose_name_plural = _("ledger entries")
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(
                fields=["merchant", "livemode", "-created_at", "-id"], name="ledger_list_idx"
            ),
            # The rows a balance still adds up one by one: those since the last checkpoint
            # (PostgreSQL reads their amounts from the index alone).
            models.Index(
                fields=["merchant", "livemode", "currency", "epoch"],
                include=["amount"],
                name="ledger_epoch_idx",
            ),
            # The rows not yet available (available_on after now), whatever their epoch: the
            # pending balance reads them alone, never the history.
            models.Index(
                fields=["merchant", "livemode", "currency", "available_on"],
                include=["amount", "fee"],
                name="ledger_pending_idx",
                condition=models.Q(available_on__isnull=False),
            ),
        ]
        constraints = [
            models.UniqueConstraint(fields=["type", "source"], name="ledger_once_per_source"),
            models.CheckConstraint(condition=~models.Q(amount=0), name="ledger_amount_nonzero"),
            # A fee never exceeds what it is taken on.
            models.CheckConstraint(
                condition=models.Q(fee__lte=Abs("amount")) & models.Q(fee__gte=-Abs("amount")),
                name="ledger_fee_within_amount",
            ),
        ]

    def __str__(self) -> str:
        return self.id

    @property
    def net(self) -> int:
        """What the row moves the balance by."""
        return self.amount - self.fee


class BalanceCheckpoint(AppendOnlyModel):
    """What every ledger row of one merchant, mode and currency written before `epoch` adds up
    to, so that a balance sums only the rows since (services.ledger). Written under a lock that
    waits for every transaction writing such rows, so no row of an earlier epoch can appear
    after it; append-only, like the ledger."""

    merchant = models.ForeignKey(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.PROTECT,
        related_name="+",
        db_index=False,  # balance_checkpoint_once begins with it
    )
    livemode = models.BooleanField(_("live mode"))
    currency = models.CharField(_("currency"), max_length=3, choices=Currency.choices)
    epoch = models.PositiveIntegerField(
        _("epoch"), help_text=_("Rows of the epochs before this one are added up here.")
    )
    total = models.BigIntegerField(_("total (minor units)"))
    entries = models.BigIntegerField(_("ledger rows"))
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    APPEND_ONLY = "balance checkpoints"

    class Meta:
        verbose_name = _("balance checkpoint")
        verbose_name_plural = _("balance checkpoints")
        ordering = ["-epoch"]
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "livemode", "currency", "epoch"], name="balance_checkpoint_once"
            ),
            models.CheckConstraint(
                condition=models.Q(epoch__gte=1), name="balance_checkpoint_epoch"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.merchant_id} {self.currency} #{self.epoch}"


class NetworkState(models.Model):
    """Whether staff closed a network in one mode (an operator's outage or maintenance): new
    charges and payouts on a closed network are refused. No row: the network is open. The
    reason is for staff; merchants only see that the network is closed."""

    network = models.CharField(_("network"), max_length=20, choices=Network.choices)
    livemode = models.BooleanField(_("live mode"))
    closed = models.BooleanField(_("closed"), default=False)
    reason = models.CharField(
        _("reason"),
        max_length=500,
        blank=True,
        default="",
        help_text=_("Why it is closed (staff only)."),
    )
    updated_at = models.DateTimeField(_("updated at"), default=timezone.now)
    updated_by = models.CharField(_("updated by"), max_length=150, blank=True, default="")

    class Meta:
        verbose_name = _("network state")
        verbose_name_plural = _("network states")
        ordering = ["livemode", "network"]
        constraints = [
            models.UniqueConstraint(fields=["network", "livemode"], name="network_state_per_mode")
        ]

    def __str__(self) -> str:
        return f"{self.get_network_display()} ({'live' if self.livemode else 'test'})"


class IdempotencyRecord(idempotency.IdempotencyRecord):
    """The stored answer to a POST made with an Idempotency-Key (core/api/idempotency.py), kept
    per merchant: IDEMPOTENCY_RECORD_MODEL names this model."""

    merchant = models.ForeignKey(Merchant, on_delete=models.CASCADE)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["merchant", "livemode", "key"], name="idempotency_scope_unique"
            )
        ]


class StatementNetwork(models.TextChoices):
    """Whose statement: one of the mobile money operators, or the card provider."""

    AIRTEL_MONEY = "AIRTEL_MONEY", AirtelMoney.label
    VODACOM_MPESA = "VODACOM_MPESA", VodacomMpesa.label
    ORANGE_MONEY = "ORANGE_MONEY", OrangeMoney.label
    CARD = "CARD", _("Card provider")


class LineType(models.TextChoices):
    COLLECTION = "collection", _("Collection")
    DISBURSEMENT = "disbursement", _("Disbursement")
    REVERSAL = "reversal", _("Reversal")


class LineStatus(models.TextChoices):
    SUCCEEDED = "succeeded", pgettext_lazy("status", "Succeeded")
    FAILED = "failed", pgettext_lazy("status", "Failed")


class ReconciliationOutcome(models.TextChoices):
    MATCHED = "matched", _("Matched")
    AMOUNT_MISMATCH = "amount_mismatch", _("Amount differs")
    CURRENCY_MISMATCH = "currency_mismatch", _("Currency differs")
    STATUS_MISMATCH = "status_mismatch", _("Status differs")
    LATE_PAYMENT = "late_payment", _("Late payment")
    UNKNOWN = "unknown", _("Unknown to us")
    MISSING = "missing", _("Missing from the statement")


# The results that need nobody: the others stay open until staff resolve them.
CLOSED_OUTCOMES = (ReconciliationOutcome.MATCHED, ReconciliationOutcome.LATE_PAYMENT)


class Statement(models.Model):
    """An operator's (or the card provider's) statement as staff loaded it: each file once per
    network and mode (its SHA-256), its lines and the results of comparing them with our books
    (services.reconciliation)."""

    id = models.CharField(
        "ID", primary_key=True, max_length=40, default=ids.statement_id, editable=False
    )
    network = models.CharField(_("network"), max_length=20, choices=StatementNetwork.choices)
    livemode = models.BooleanField(_("live mode"))
    file_name = models.CharField(_("file name"), max_length=255, blank=True, default="")
    file_hash = models.CharField(_("file SHA-256"), max_length=64)
    file_format = models.CharField(_("file format"), max_length=20, default="generic")
    period_from = models.DateField(_("period from"), null=True, blank=True)
    period_to = models.DateField(_("period to"), null=True, blank=True)
    line_count = models.PositiveIntegerField(_("lines"), default=0)
    # The operator's closing balance per currency ({"CDF": 123}) when its format states one.
    closing_balance = models.JSONField(_("closing balance"), default=dict, blank=True)
    summary = models.JSONField(_("summary"), default=dict, blank=True)
    loaded_at = models.DateTimeField(_("loaded at"), default=timezone.now, editable=False)
    loaded_by = models.CharField(_("loaded by"), max_length=150, blank=True, default="")

    class Meta:
        verbose_name = _("operator statement")
        verbose_name_plural = _("operator statements")
        ordering = ["-loaded_at", "-id"]
        permissions = [("reconcile", _("Can reconcile operator statements"))]
        constraints = [
            models.UniqueConstraint(
                fields=["network", "livemode", "file_hash"], name="statement_file_once"
            )
        ]

    def __str__(self) -> str:
        return self.id

    @property
    def mode(self) -> str:
        return Mode.LIVE if self.livemode else Mode.TEST


class StatementLine(models.Model):
    """One line of a statement, as the operator wrote it (in the generic format's terms)."""

    statement = models.ForeignKey(
        Statement, verbose_name=_("statement"), on_delete=models.CASCADE, related_name="lines"
    )
    number = models.PositiveIntegerField(_("line"))
    operator_reference = models.CharField(
        _("operator reference"), max_length=100, blank=True, default=""
    )
    merchant_reference = models.CharField(
        _("our reference"), max_length=100, blank=True, default=""
    )
    type = models.CharField("type", max_length=15, choices=LineType.choices)
    amount = models.BigIntegerField(_("amount (minor units)"))
    currency = models.CharField(_("currency"), max_length=3)
    status = models.CharField(_("status"), max_length=10, choices=LineStatus.choices)
    completed_at = models.DateTimeField(_("completed at"))
    fee = models.BigIntegerField(_("operator fee (minor units)"), default=0)
    # Another statement of the same network and mode had this operator reference first: the line
    # is counted there, and gets no result here.
    counted_before = models.BooleanField(_("counted in an earlier statement"), default=False)

    class Meta:
        verbose_name = _("statement line")
        verbose_name_plural = _("statement lines")
        ordering = ["statement", "number"]
        indexes = [
            models.Index(
                fields=["operator_reference"],
                name="statement_line_reference_idx",
                condition=~models.Q(operator_reference=""),
            )
        ]
        constraints = [
            models.UniqueConstraint(fields=["statement", "number"], name="statement_line_once")
        ]

    def __str__(self) -> str:
        return f"{self.statement_id} #{self.number}"


class ReconciliationResult(models.Model):
    """What one line of a statement, or one of our objects with no line (`missing`), came to.
    A result other than matched or late_payment is open until staff resolve it with a note."""

    statement = models.ForeignKey(
        Statement, verbose_name=_("statement"), on_delete=models.CASCADE, related_name="results"
    )
    line = models.OneToOneField(
        StatementLine,
        verbose_name=_("statement line"),
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="result",
    )
    outcome = models.CharField(
        _("result"), max_length=20, choices=ReconciliationOutcome.choices, db_index=True
    )
    # Our charge, refund, payout or settlement (its id), when one was found.
    object_id = models.CharField(_("our object"), max_length=40, blank=True, default="")
    merchant = models.ForeignKey(
        Merchant,
        verbose_name=_("merchant"),
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    livemode = models.BooleanField(_("live mode"))
    currency = models.CharField(_("currency"), max_length=3, blank=True, default="")
    amount = models.BigIntegerField(_("our amount (minor units)"), null=True, blank=True)
    our_status = models.CharField(_("our status"), max_length=12, blank=True, default="")
    detail = models.CharField(_("difference"), max_length=500, blank=True, default="")
    # Our money at risk (a success the operator denies, or that is missing): the merchant's
    # available balance in that currency when it was found.
    available_balance = models.BigIntegerField(
        _("merchant's available balance"), null=True, blank=True
    )
    needs_staff = models.BooleanField(_("flagged for staff"), default=False)
    created_at = models.DateTimeField(_("found at"), default=timezone.now, editable=False)
    resolved_at = models.DateTimeField(_("resolved at"), null=True, blank=True)
    resolved_by = models.CharField(_("resolved by"), max_length=150, blank=True, default="")
    resolution_note = models.TextField(_("resolution note"), blank=True, default="")

    class Meta:
        verbose_name = _("reconciliation result")
        verbose_name_plural = _("reconciliation results")
        ordering = ["statement", "line__number", "id"]
        indexes = [
            models.Index(
                fields=["object_id"],
                name="reconciliation_object_idx",
                condition=~models.Q(object_id=""),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.statement_id} {self.outcome}"

    @property
    def is_open(self) -> bool:
        return self.outcome not in CLOSED_OUTCOMES and self.resolved_at is None
