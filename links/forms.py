"""The payment link page's form: the amount a customer types (custom amount links) and an
optional e-mail address for the receipt, with messages in the customer's language — also for
the amounts checkout refuses (amount_refused)."""

from decimal import Decimal, InvalidOperation

from django import forms
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.money import MINOR_PER_UNIT, format_customer_amount, is_whole
from payments.api.fields import AMOUNT_MAX
from payments.models import Currency, Network
from payments.selectors import network_limits

LARGEST = Decimal(AMOUNT_MAX) / MINOR_PER_UNIT
SPACES = str.maketrans("", "", " \u00a0\u202f'")
WHOLE_UNITS_ONLY = {
    Currency.CDF: _("Mobile money takes whole francs only: enter an amount without cents."),
    Currency.USD: _("Mobile money takes whole dollars only: enter an amount without cents."),
}


class LinkPayForm(forms.Form):
    amount = forms.CharField(
        label=_("Amount"),
        max_length=24,
        required=False,
        widget=forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}),
    )
    email = forms.EmailField(
        label=_("E-mail address for the receipt (optional)"),
        required=False,
        max_length=254,
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )

    def __init__(self, *args, custom_amount: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.custom_amount = custom_amount
        if custom_amount:
            self.fields["amount"].required = True
            self.fields["amount"].error_messages["required"] = _("Enter the amount to pay.")
        else:
            del self.fields["amount"]

    def clean_amount(self) -> int:
        """What the customer typed, in major units (`2500`, `2 500`, `19,99`, `19.99`), as minor
        units. Whether a network or card takes it is checkout's rule, applied when the session
        is opened."""
        text = self.cleaned_data["amount"].translate(SPACES).replace(",", ".")
        try:
            value = Decimal(text)
        except InvalidOperation:
            value = None
        if value is None or not value.is_finite() or value <= 0 or value.as_tuple().exponent < -2:
            raise forms.ValidationError(_("Enter an amount such as 2500 or 19.99."), code="invalid")
        if value > LARGEST:
            raise forms.ValidationError(_("This amount is too large."), code="invalid")
        return int(value * MINOR_PER_UNIT)


# --- The amounts checkout refuses, in the customer's words --------------------------------------
# checkout.services.session_payment_methods stays the one judge of what a session takes; its
# amount_invalid is written for integrators (`amount`, minor units), so the page says it again.
# It refuses cents only where mobile money is the way to pay (CDF, or USD without card), and a
# whole amount only when no network takes it and card is not offered: the cents, else the
# networks' limits, are the reason.


def amount_refused(*, currency: str, amount: int, custom_amount: bool, merchant_name: str) -> str:
    """Checkout's amount_invalid for `amount`, in the active language. A fixed link's customer
    can change nothing (its amount was taken when it was created; limits or card changed since):
    they are sent to the merchant."""
    if not custom_amount:
        return gettext(
            "This amount cannot be paid here at the moment. Ask %(name)s for a new payment link."
        ) % {"name": merchant_name}
    if not is_whole(amount):
        return str(WHOLE_UNITS_ONLY[currency])
    return _outside_limits(currency=currency, amount=amount)


def _outside_limits(*, currency: str, amount: int) -> str:
    """From the lowest network minimum to the highest maximum — unless the amount falls between
    two networks' limits (configured apart), when each network's limits are said."""
    limits = {network: network_limits(network=network, currency=currency) for network in Network}
    low = min(low for low, _high in limits.values())
    high = max(high for _low, high in limits.values())
    if not low <= amount <= high:
        return gettext("Enter an amount from %(min)s to %(max)s.") % _range(low, high, currency)
    each = [
        gettext("%(network)s takes %(min)s to %(max)s.")
        % {"network": network.label, **_range(*limits[network], currency)}
        for network in limits
    ]
    return " ".join([gettext("No mobile money network takes this amount."), *each])


def _range(low: int, high: int, currency: str) -> dict[str, str]:
    language = translation.get_language()[:2]
    return {
        "min": format_customer_amount(low, currency, language),
        "max": format_customer_amount(high, currency, language),
    }
