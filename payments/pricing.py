"""Price plans and fees (docs/guides/fees-and-balance.md).

A merchant's plan is the default plan of the settings (PRICING_DEFAULT) with the merchant's own
rates (PriceRate, set by staff) in place of the default's of the same kind, method, network and
currency. Of a plan's rates the most specific applies: the network's, else the method's
(`payment_method` set, `network` blank), else the kind's (both blank); none: no fee.

A fee is round_half_up(amount × rate_bp / 10000) + fixed, never more than the amount, in
integers only."""

from dataclasses import asdict, dataclass
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db.models import BigIntegerField, Case, ExpressionWrapper, F, Value, When
from django.db.models.functions import Least
from django.utils.formats import number_format
from django.utils.translation import gettext, ngettext

from core.money import Currency, format_amount
from payments.models import Merchant, Network, PaymentMethod, PriceRate, PricingKind

BASIS_POINTS = 10_000


@dataclass(frozen=True)
class Rate:
    kind: str
    payment_method: str  # "" for every method
    network: str  # "" for every network of the method
    currency: str
    rate_bp: int
    fixed: int
    available_after_days: int = 0

    @property
    def key(self) -> tuple[str, str, str, str]:
        return (self.kind, self.payment_method, self.network, self.currency)

    def fee(self, amount: int) -> int:
        return fee_of(amount, rate_bp=self.rate_bp, fixed=self.fixed)

    def as_json(self) -> dict:
        """The rate as GET /v1/pricing shows it (blank method and network are null)."""
        data = asdict(self)
        data["payment_method"] = self.payment_method or None
        data["network"] = self.network or None
        return data


NO_FEE = Rate(
    kind="", payment_method="", network="", currency="", rate_bp=0, fixed=0, available_after_days=0
)


def fee_of(amount: int, *, rate_bp: int, fixed: int) -> int:
    """round_half_up(amount × rate_bp / 10000) + fixed, at most the amount (amount ≥ 0)."""
    proportional = (amount * rate_bp + BASIS_POINTS // 2) // BASIS_POINTS
    return min(proportional + fixed, amount)


class RateInvalid(ValueError):
    """Why some data is no rate: `field` is the field at fault (None: the data as a whole) and
    `code` the rule it breaks, so that a form can say it in its own words (payments/admin)."""

    def __init__(self, message: str, *, field: str | None = None, code: str = "invalid"):
        super().__init__(message)
        self.field = field
        self.code = code


def rate_from(data: dict) -> Rate:
    """A rate from its JSON shape (PRICING_DEFAULT, GET /v1/pricing); RateInvalid when it is not
    one: an unknown kind, method, network or currency, a network without its method, a rate
    outside 0–10000 basis points, a negative fixed fee, or a delay on anything but a charge."""
    if not isinstance(data, dict):
        raise RateInvalid("a rate is an object")
    unknown = set(data) - {
        "kind",
        "payment_method",
        "network",
        "currency",
        "rate_bp",
        "fixed",
        "available_after_days",
    }
    if unknown:
        raise RateInvalid(f"unknown fields {sorted(unknown)}")
    kind = data.get("kind")
    method = data.get("payment_method") or ""
    network = data.get("network") or ""
    currency = data.get("currency")
    rate_bp, fixed = data.get("rate_bp", 0), data.get("fixed", 0)
    delay = data.get("available_after_days", 0)
    if kind not in PricingKind.values:
        raise RateInvalid(f"kind {kind!r} is none of {PricingKind.values}", field="kind")
    if method and method not in PaymentMethod.values:
        raise RateInvalid(
            f"payment_method {method!r} is none of {PaymentMethod.values}", field="payment_method"
        )
    if network and network not in Network.values:
        raise RateInvalid(f"network {network!r} is none of {Network.values}", field="network")
    if network and method != PaymentMethod.MOBILE_MONEY:
        raise RateInvalid(
            "a network's rate names its payment_method, mobile_money",
            field="network",
            code="network_without_mobile_money",
        )
    if currency not in Currency.values:
        raise RateInvalid(f"currency {currency!r} is none of {Currency.values}", field="currency")
    for name, value in (("rate_bp", rate_bp), ("fixed", fixed), ("available_after_days", delay)):
        if type(value) is not int or value < 0:
            raise RateInvalid(f"{name} is a whole number, 0 or more", field=name, code="negative")
    if rate_bp > BASIS_POINTS:
        raise RateInvalid("rate_bp is at most 10000 (100 %)", field="rate_bp", code="above_all")
    if delay and kind != PricingKind.CHARGE:
        raise RateInvalid(
            "available_after_days is for charges only",
            field="available_after_days",
            code="delay_not_charge",
        )
    return Rate(kind, method, network, currency, rate_bp, fixed, delay)


def plan_from_setting(rates: list) -> tuple[Rate, ...]:
    """PRICING_DEFAULT, checked when the settings are read: ImproperlyConfigured names the rate
    that is wrong, and a rate given twice."""
    if not isinstance(rates, list):
        raise ImproperlyConfigured("PRICING_DEFAULT is a JSON list of rates")
    plan: dict[tuple, Rate] = {}
    for number, data in enumerate(rates, start=1):
        try:
            rate = rate_from(data)
        except RateInvalid as exc:
            raise ImproperlyConfigured(f"PRICING_DEFAULT, rate {number}: {exc}") from exc
        if rate.key in plan:
            raise ImproperlyConfigured(f"PRICING_DEFAULT, rate {number}: given twice")
        plan[rate.key] = rate
    return tuple(plan.values())


def default_plan() -> tuple[Rate, ...]:
    return plan_from_setting(settings.PRICING_DEFAULT)


def own_rates(merchant: Merchant | str) -> list[Rate]:
    """The merchant's own rates (set by staff), without the default plan's."""
    merchant_id = merchant if isinstance(merchant, str) else merchant.pk
    rows = PriceRate.objects.filter(merchant_id=merchant_id).values_list(
        "kind", "payment_method", "network", "currency", "rate_bp", "fixed", "available_after_days"
    )
    return [Rate(*row) for row in rows]


def plan_of(merchant: Merchant | str) -> list[Rate]:
    """The merchant's plan: the default's rates, each replaced by the merchant's own of the same
    key, and the merchant's others; ordered by kind, currency, then the wider rates first."""
    plan = {rate.key: rate for rate in default_plan()}
    plan.update((rate.key, rate) for rate in own_rates(merchant))
    kinds = list(PricingKind.values)
    return sorted(
        plan.values(),
        key=lambda rate: (
            kinds.index(rate.kind),
            rate.currency,
            rate.payment_method,
            rate.network,
        ),
    )


def rate_in(plan: list[Rate], *, kind: str, payment_method: str, network: str, currency: str):
    """The rate of `plan` that applies: the network's, else the method's, else the kind's; the
    rate of no fee when the plan has none."""
    by_key = {rate.key: rate for rate in plan}
    for key in (
        (kind, payment_method, network, currency),
        (kind, payment_method, "", currency),
        (kind, "", "", currency),
    ):
        if key[2] and not key[1]:
            continue
        if key in by_key:
            return by_key[key]
    return NO_FEE


def rate_for(
    merchant: Merchant | str, *, kind: str, payment_method: str, network: str, currency: str
) -> Rate:
    return rate_in(
        plan_of(merchant),
        kind=kind,
        payment_method=payment_method or "",
        network=network or "",
        currency=currency,
    )


def charge_rate_keep(charge, plan: list[Rate] | None = None) -> None:
    """Keep on a new charge the rate of its merchant's plan in force now: its fee once it
    succeeds follows it, whatever the plan says later."""
    rate = rate_in(
        plan if plan is not None else plan_of(charge.merchant_id),
        kind=PricingKind.CHARGE,
        payment_method=charge.payment_method,
        network=charge.network or "",
        currency=charge.currency,
    )
    charge.fee_rate_bp = rate.rate_bp
    charge.fee_fixed = rate.fixed
    charge.fee_available_after_days = rate.available_after_days


def charge_fee(charge) -> int:
    """The fee of a charge by the rate kept on it (0 for one created before fees)."""
    if charge.fee_rate_bp is None:
        return 0
    return fee_of(charge.amount, rate_bp=charge.fee_rate_bp, fixed=charge.fee_fixed or 0)


def charge_fee_sql():
    """charge_fee as a database expression over a charge's columns (checkledger checks every
    charge in one statement): integer division rounds down amounts that are never negative, so
    adding half the divisor first rounds half up, as fee_of does."""
    big = BigIntegerField()
    proportional = ExpressionWrapper(
        (F("amount") * F("fee_rate_bp") + Value(BASIS_POINTS // 2)) / Value(BASIS_POINTS),
        output_field=big,
    )
    return Case(
        When(fee_rate_bp__isnull=True, then=Value(0)),
        default=Least(
            ExpressionWrapper(proportional + F("fee_fixed"), output_field=big), F("amount")
        ),
        output_field=big,
    )


# --- In words (the staff's pages, the merchant's audit log) -------------------------------------


def rate_scope_words(*, kind: str, payment_method: str, network: str, currency: str) -> str:
    """What a rate applies to, in the active language: "Collection, Mobile money, Airtel Money,
    CDF"; a blank method is every method, a blank network every network of the method."""
    parts = [str(PricingKind(kind).label)]
    if payment_method:
        parts.append(str(PaymentMethod(payment_method).label))
        parts.append(str(Network(network).label) if network else gettext("every network"))
    else:
        parts.append(gettext("every method"))
    parts.append(currency)
    return ", ".join(parts)


def percent_words(rate_bp: int) -> str:
    """250 → "2.50 %" ("2,50 %" in French)."""
    number = number_format(Decimal(rate_bp).scaleb(-2), 2, use_l10n=True)
    return f"{number}\u00a0%"


def rate_terms_words(*, rate_bp: int, fixed: int, available_after_days: int, currency: str) -> str:
    """What a rate takes, in the active language: "2.50 % + 100.00 CDF, available after 2
    days"; "no fee" when it takes nothing."""
    parts = []
    if rate_bp:
        parts.append(percent_words(rate_bp))
    if fixed:
        parts.append(format_amount(fixed, currency))
    text = " + ".join(parts) or gettext("no fee")
    if available_after_days:
        text += ngettext(
            ", available after %(days)d day",
            ", available after %(days)d days",
            available_after_days,
        ) % {"days": available_after_days}
    return text


def _terms(rate: Rate | None, *, default: bool) -> dict | None:
    if rate is None:
        return None
    return {
        "rate_bp": rate.rate_bp,
        "fixed": rate.fixed,
        "available_after_days": rate.available_after_days,
        "default": default,
    }


def own_rate_changes(before: list[Rate], after: list[Rate]) -> list[dict]:
    """What changed between two sets of a merchant's own rates, one change per rate key, in the
    order of the plan: the key (kind, payment_method, network, currency) and the rate in force
    for it `before` and `after` (its terms, and `default` true where the default plan's rate is
    the one, the merchant having none of its own; null where neither has one). JSON, for the
    audit log, which says it in words (change_words)."""
    defaults = {rate.key: rate for rate in default_plan()}
    old = {rate.key: rate for rate in before}
    new = {rate.key: rate for rate in after}
    kinds = list(PricingKind.values)
    keys = sorted(
        {key for key in old.keys() | new.keys() if old.get(key) != new.get(key)},
        key=lambda key: (kinds.index(key[0]), key[3], key[1], key[2]),
    )
    changes = []
    for key in keys:
        kind, method, network, currency = key
        changes.append(
            {
                "kind": kind,
                "payment_method": method,
                "network": network,
                "currency": currency,
                "before": _terms(old[key], default=False)
                if key in old
                else _terms(defaults.get(key), default=True),
                "after": _terms(new[key], default=False)
                if key in new
                else _terms(defaults.get(key), default=True),
            }
        )
    return changes


def change_key(change: dict) -> str:
    """A change's rate key as the API names it: "charge mobile_money AIRTEL_MONEY CDF" (blank
    method and network left out)."""
    parts = (change["kind"], change["payment_method"], change["network"], change["currency"])
    return " ".join(part for part in parts if part)


def change_words(change: dict) -> str:
    """An own_rate_changes change in the active language: "Collection, Mobile money, every
    network, CDF: 3.00 % (default plan) → 2.50 % + 100.00 CDF"."""

    def terms(side: dict | None) -> str:
        if side is None:
            return gettext("none")
        text = rate_terms_words(
            rate_bp=side["rate_bp"],
            fixed=side["fixed"],
            available_after_days=side["available_after_days"],
            currency=change["currency"],
        )
        return gettext("%(terms)s (default plan)") % {"terms": text} if side["default"] else text

    scope = rate_scope_words(
        kind=change["kind"],
        payment_method=change["payment_method"],
        network=change["network"],
        currency=change["currency"],
    )
    return gettext("%(scope)s: %(before)s → %(after)s") % {
        "scope": scope,
        "before": terms(change["before"]),
        "after": terms(change["after"]),
    }
