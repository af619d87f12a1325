"""The payment link page's form: the amount a customer types (custom amount links) and an
optional e-mail address for the receipt, with messages in the customer's language."""

from decimal import Decimal, InvalidOperation

from django import forms
from django.utils.translation import gettext_lazy as _

from core.money import MINOR_PER_UNIT
from payments.api.fields import AMOUNT_MAX

LARGEST = Decimal(AMOUNT_MAX) / MINOR_PER_UNIT
SPACES = str.maketrans("", "", " \u00a0\u202f'")


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
