"""A merchant's price plan in words, in the page's language (payments.pricing owns the plan and
the arithmetic): "Card collections in USD: 3.90 % + 0.30 USD per payment, available 7 days
after the payment". Read by the pricing settings page, a payment's page and the payout form."""

from dataclasses import dataclass
from decimal import Decimal

from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

from core.money import format_amount
from payments.models import Network, PaymentMethod, PricingKind
from payments.pricing import Rate

# The title of each kind's part of the page.
KIND_TITLES = {
    PricingKind.CHARGE: gettext_lazy("Payments you collect"),
    PricingKind.PAYOUT: gettext_lazy("Payouts"),
    PricingKind.SETTLEMENT: gettext_lazy("Settlements to your own account"),
}
# What a rate applies to, by kind and by how wide it is: one network, one method, or the kind's
# rate for what has none of its own (for a settlement: a bank account).
SUBJECTS = {
    (PricingKind.CHARGE, "network"): gettext_lazy("%(network)s collections in %(currency)s"),
    (PricingKind.CHARGE, PaymentMethod.MOBILE_MONEY): gettext_lazy(
        "Mobile money collections in %(currency)s"
    ),
    (PricingKind.CHARGE, PaymentMethod.CARD): gettext_lazy("Card collections in %(currency)s"),
    (PricingKind.CHARGE, ""): gettext_lazy(
        "Collections in %(currency)s by any means without a rate of its own"
    ),
    (PricingKind.PAYOUT, "network"): gettext_lazy("Payouts to %(network)s in %(currency)s"),
    (PricingKind.PAYOUT, PaymentMethod.MOBILE_MONEY): gettext_lazy(
        "Mobile money payouts in %(currency)s"
    ),
    (PricingKind.PAYOUT, PaymentMethod.CARD): gettext_lazy("Card payouts in %(currency)s"),
    (PricingKind.PAYOUT, ""): gettext_lazy("Payouts in %(currency)s without a rate of their own"),
    (PricingKind.SETTLEMENT, "network"): gettext_lazy(
        "Settlements to a %(network)s account in %(currency)s"
    ),
    (PricingKind.SETTLEMENT, PaymentMethod.MOBILE_MONEY): gettext_lazy(
        "Settlements to a mobile money account in %(currency)s"
    ),
    (PricingKind.SETTLEMENT, PaymentMethod.CARD): gettext_lazy(
        "Settlements to a card in %(currency)s"
    ),
    (PricingKind.SETTLEMENT, ""): gettext_lazy(
        "Bank settlements in %(currency)s, and any other settlement without a rate of its own"
    ),
}
PER = {
    PricingKind.CHARGE: gettext_lazy("%(price)s per payment"),
    PricingKind.PAYOUT: gettext_lazy("%(price)s per payout"),
    PricingKind.SETTLEMENT: gettext_lazy("%(price)s per settlement"),
}


@dataclass(frozen=True)
class PlanPart:
    """One kind of the plan: its title and one sentence per rate (none: no fee)."""

    kind: str
    title: str
    lines: list[str]


def percent(rate_bp: int) -> str:
    """250 basis points → `2.50 %` (`2,50 %` in French), in the page's language."""
    number = number_format(Decimal(rate_bp).scaleb(-2), 2, use_l10n=True)
    return f"{number}\u00a0%"


def price(*, rate_bp: int, fixed: int, currency: str) -> str:
    """`3.90 % + 0.30 USD`, `3.00 %`, `25,000.00 CDF`, or "no fee"."""
    parts = []
    if rate_bp:
        parts.append(percent(rate_bp))
    if fixed:
        parts.append(format_amount(fixed, currency))
    return " + ".join(parts) if parts else _("no fee")


def rate_words(rate: Rate) -> str:
    """One rate of the plan as one sentence."""
    width = "network" if rate.network else rate.payment_method
    subject = SUBJECTS[(rate.kind, width)] % {
        "currency": rate.currency,
        "network": Network(rate.network).label if rate.network else "",
    }
    cost = price(rate_bp=rate.rate_bp, fixed=rate.fixed, currency=rate.currency)
    if rate.rate_bp or rate.fixed:
        cost = PER[rate.kind] % {"price": cost}
    line = _("%(subject)s: %(price)s") % {"subject": subject, "price": cost}
    days = rate.available_after_days
    if days:
        line = ngettext(
            "%(line)s, available %(days)s day after the payment",
            "%(line)s, available %(days)s days after the payment",
            days,
        ) % {"line": line, "days": days}
    return line


def plan_words(plan: list[Rate], kinds=tuple(PricingKind.values)) -> list[PlanPart]:
    """The plan (payments.pricing.plan_of, in its order) by kind, each kind of `kinds` shown."""
    return [
        PlanPart(
            kind=kind,
            title=str(KIND_TITLES[kind]),
            lines=[rate_words(rate) for rate in plan if rate.kind == kind],
        )
        for kind in kinds
    ]
