"""The payment link page's form: the amount a customer types (custom amount links) and an
optional e-mail address for the receipt, with messages in the customer's language — also for
the amounts checkout refuses (amount_refused)."""

from django import forms
from django.conf import settings
from django.utils import translation
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.money import format_customer_amount, is_whole, typed_amount
from payments.models import Currency, Network
from payments.selectors import network_limits

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
        units (core.money.typed_amount). Whether a network or card takes it is checkout's rule,
        applied when the session is opened; what it refuses is said with the range."""
        amount = typed_amount(self.cleaned_data["amount"])
        if amount is None:
            raise forms.ValidationError(_("Enter an amount such as 2500 or 19.99."), code="invalid")
        return amount


# --- The amounts checkout refuses, in the customer's words --------------------------------------
# checkout.services.session_payment_methods stays the one judge of what a session takes; its
# amount_invalid is written for integrators (`amount`, minor units), so the page says it again.
# Without card (CDF, or USD without the card rail) it refuses cents, else an amount no network
# takes: the cents, else the networks' limits, are the reason. With card, a typed amount is
# refused only when neither card (CARD_CUSTOM_AMOUNT_LIMITS) nor a network takes it: the page
# names the range from the lowest to the highest amount either takes.


def amount_refused(
    *, currency: str, amount: int, custom_amount: bool, merchant_name: str, card: bool = False
) -> str:
    """Checkout's amount_invalid for `amount`, in the active language. A fixed link's customer
    can change nothing (its amount was taken when it was created; limits or card changed since):
    they are sent to the merchant. `card`: card payments are offered for the link's currency, for
    typed amounts within CARD_CUSTOM_AMOUNT_LIMITS."""
    if not custom_amount:
        return gettext(
            "This amount cannot be paid here at the moment. Ask %(name)s for a new payment link."
        ) % {"name": merchant_name}
    if card:
        return _outside_card_or_limits(currency=currency, amount=amount)
    if not is_whole(amount):
        return str(WHOLE_UNITS_ONLY[currency])
    return _outside_limits(currency=currency, amount=amount)


def _outside_card_or_limits(*, currency: str, amount: int) -> str:
    """From the lowest amount a network or card takes to the highest — unless the amount falls
    between them (limits configured apart), when what card and each network takes is said."""
    limits = {network: network_limits(network=network, currency=currency) for network in Network}
    card_low, card_high = settings.CARD_CUSTOM_AMOUNT_LIMITS
    low = min(card_low, *(low for low, _high in limits.values()))
    high = max(card_high, *(high for _low, high in limits.values()))
    if not low <= amount <= high:
        return gettext("Enter an amount from %(min)s to %(max)s.") % _range(low, high, currency)
    said = [
        gettext("A card payment takes %(min)s to %(max)s.") % _range(card_low, card_high, currency)
    ]
    if not is_whole(amount):
        said.append(str(WHOLE_UNITS_ONLY[currency]))
    else:
        said += [
            gettext("%(network)s takes %(min)s to %(max)s.")
            % {"network": network.label, **_range(*limits[network], currency)}
            for network in limits
        ]
    return " ".join(said)


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
