"""A merchant's price plan in the admin (/admin/payments/merchant/<id>/pricing/): the plan in
force, each rate in words and whence it comes (the default plan of PRICING_DEFAULT, or the
merchant's own rate), and the merchant's own rates to change.

Seeing the plan needs the right to see merchants (or the one below); adding, changing or
deleting the merchant's own rates needs payments.change_pricing, which changing merchants does
not give: a rate is what the service earns on each of the merchant's payments. A change posted
without it answers 403 and changes nothing. Each change of a rate is written to the merchant's
audit log (pricing.updated, through payments.services.pricing)."""

from datetime import UTC

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from core.money import Currency
from payments import pricing
from payments.models import Merchant, Network, PaymentMethod, PriceRate, PricingKind
from payments.services.pricing import PlanChangedMeanwhile, plan_version, price_plan_set

CHANGE_PRICING = "payments.change_pricing"
FIELDS = ("kind", "payment_method", "network", "currency", "rate_bp", "fixed")
BLANK = [("", "---------")]


def _label(name: str):
    return PriceRate._meta.get_field(name).verbose_name


class RateForm(forms.Form):
    """One of the merchant's own rates. The rules are those of a rate of PRICING_DEFAULT
    (payments.pricing.rate_from), said here in the staff's words."""

    # What rate_from's rules say, by the rule broken.
    MESSAGES = {
        "network_without_mobile_money": _(
            "A network's rate is a mobile money rate: choose the payment method Mobile money, "
            "or no network."
        ),
        "negative": _("Enter a whole number, 0 or more."),
        "above_all": _("A rate is at most 10000 basis points (100 %)."),
        "delay_not_charge": _(
            "Only collections wait before their net is available: enter 0 for a payout or a "
            "settlement."
        ),
    }

    kind = forms.ChoiceField(label=_label("kind"), choices=BLANK + PricingKind.choices)
    payment_method = forms.ChoiceField(
        label=_label("payment_method"),
        choices=[("", _("every method"))] + PaymentMethod.choices,
        required=False,
    )
    network = forms.ChoiceField(
        label=_label("network"),
        choices=[("", _("every network"))] + Network.choices,
        required=False,
    )
    currency = forms.ChoiceField(label=_label("currency"), choices=BLANK + Currency.choices)
    rate_bp = forms.IntegerField(
        label=_label("rate_bp"), widget=forms.NumberInput(attrs={"class": "vIntegerField"})
    )
    fixed = forms.IntegerField(
        label=_label("fixed"), initial=0, widget=forms.NumberInput(attrs={"class": "vIntegerField"})
    )
    available_after_days = forms.IntegerField(
        label=_label("available_after_days"),
        initial=0,
        widget=forms.NumberInput(attrs={"class": "vIntegerField"}),
    )

    rate: pricing.Rate | None = None

    def clean(self):
        data = super().clean()
        if any(name in self.errors for name in (*FIELDS, "available_after_days")):
            return data
        try:
            self.rate = pricing.rate_from(
                {name: data[name] for name in (*FIELDS, "available_after_days")}
            )
        except pricing.RateInvalid as invalid:
            field = invalid.field if invalid.field in self.fields else None
            self.add_error(field, self.MESSAGES.get(invalid.code, str(invalid)))
        return data


class BaseRateFormSet(forms.BaseFormSet):
    def kept(self) -> list[RateForm]:
        """The forms of the rates the merchant keeps: filled in, not marked to delete."""
        return [
            form
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE") and form.rate
        ]

    def clean(self):
        seen = set()
        for form in self.kept():
            if form.rate.key in seen:
                form.add_error(
                    None,
                    gettext(
                        "Another rate names the same kind, payment method, network and "
                        "currency: keep one of them."
                    ),
                )
            seen.add(form.rate.key)

    def rates(self) -> list[pricing.Rate]:
        return [form.rate for form in self.kept()]


RateFormSet = forms.formset_factory(RateForm, formset=BaseRateFormSet, extra=1, can_delete=True)
PREFIX = "rates"


def _initial(rates: list[pricing.Rate]) -> list[dict]:
    return [
        {
            "kind": rate.kind,
            "payment_method": rate.payment_method,
            "network": rate.network,
            "currency": rate.currency,
            "rate_bp": rate.rate_bp,
            "fixed": rate.fixed,
            "available_after_days": rate.available_after_days,
        }
        for rate in rates
    ]


def plan_rows(merchant: Merchant) -> list[dict]:
    """The plan in force, one row per rate in words: what it applies to, what it takes, and
    whence it comes (the merchant's own rate says who set it, when, and the default's it
    replaces)."""
    defaults = {rate.key: rate for rate in pricing.default_plan()}
    own = {
        (row.kind, row.payment_method, row.network, row.currency): row
        for row in PriceRate.objects.filter(merchant=merchant)
    }
    rows = []
    for rate in pricing.plan_of(merchant):
        row = own.get(rate.key)
        if row is None:
            source = gettext("default plan")
        else:
            source = gettext("this merchant's, since %(when)s by %(who)s") % {
                "when": f"{row.updated_at.astimezone(UTC):%Y-%m-%d %H:%M} UTC",
                "who": row.updated_by or "-",
            }
            if rate.key in defaults:
                source += " " + gettext("(the default plan: %(terms)s)") % {
                    "terms": _terms(defaults[rate.key])
                }
        rows.append(
            {
                "scope": pricing.rate_scope_words(
                    kind=rate.kind,
                    payment_method=rate.payment_method,
                    network=rate.network,
                    currency=rate.currency,
                ),
                "terms": _terms(rate),
                "own": row is not None,
                "source": source,
            }
        )
    return rows


def _terms(rate: pricing.Rate) -> str:
    return pricing.rate_terms_words(
        rate_bp=rate.rate_bp,
        fixed=rate.fixed,
        available_after_days=rate.available_after_days,
        currency=rate.currency,
    )


def price_plan_url(merchant: Merchant) -> str:
    return reverse("admin:payments_merchant_pricing", args=[merchant.pk])


def price_plan_view(model_admin, request, merchant_id: str):
    """The page: GET shows the plan (and, to those who may change it, the form); POST changes
    the merchant's own rates."""
    merchant = Merchant.objects.filter(pk=merchant_id).first()
    if merchant is None:
        raise Http404
    can_change = request.user.has_perm(CHANGE_PRICING)
    if not (can_change or model_admin.has_view_permission(request, merchant)):
        raise PermissionDenied
    own = pricing.own_rates(merchant)
    # The version of the plan the form shows; a form shown again with its errors keeps the one
    # its staff member first read, so that a change made meanwhile is not undone unseen.
    seen = plan_version(own)
    formset = RateFormSet(initial=_initial(own), prefix=PREFIX) if can_change else None
    if request.method == "POST":
        if not can_change:
            raise PermissionDenied
        seen = request.POST.get("seen", "")
        formset = RateFormSet(request.POST, initial=_initial(own), prefix=PREFIX)
        if formset.is_valid():
            try:
                changes = price_plan_set(
                    merchant=merchant,
                    rates=formset.rates(),
                    seen=seen,
                    user=request.user,
                    request=request,
                )
            except PlanChangedMeanwhile:
                messages.error(
                    request,
                    gettext(
                        "Someone changed this plan while you were reading it; nothing was "
                        "saved. Here is the plan as it is now: make your change again."
                    ),
                )
            else:
                if changes:
                    messages.success(
                        request,
                        ngettext(
                            "%(count)d rate of the plan changed.",
                            "%(count)d rates of the plan changed.",
                            len(changes),
                        )
                        % {"count": len(changes)},
                    )
                else:
                    messages.info(request, gettext("Nothing changed."))
            return redirect(price_plan_url(merchant))
    context = {
        **model_admin.admin_site.each_context(request),
        "title": gettext("Price plan of %(name)s") % {"name": merchant.name},
        "opts": Merchant._meta,
        "merchant": merchant,
        "merchant_url": reverse("admin:payments_merchant_change", args=[merchant.pk]),
        "plan": plan_rows(merchant),
        "formset": formset,
        "seen": seen,
        "can_change": can_change,
    }
    return TemplateResponse(request, "admin/payments/merchant/pricing.html", context)
