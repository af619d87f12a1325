"""The hosted page's mobile money form: the API's phone rules (payments.phones), messages in the
customer's language."""

from django import forms
from django.utils.translation import gettext_lazy as _

from payments import phones
from payments.models import Network

AUTO = "auto"
NETWORK_LABELS = dict(Network.choices)  # the display names the networks' adapters declare


class MobileMoneyForm(forms.Form):
    phone = forms.CharField(
        label=_("Mobile money number"),
        max_length=32,
        error_messages={"required": _("Enter your mobile money number.")},
        widget=forms.TextInput(
            attrs={
                "type": "tel",
                "inputmode": "tel",
                "autocomplete": "tel",
                "placeholder": "0812 345 678",
                "aria-describedby": "phone-help",
            }
        ),
    )
    network = forms.ChoiceField(
        label=_("Operator"),
        choices=[(AUTO, _("Detect from the number")), *NETWORK_LABELS.items()],
        initial=AUTO,
        required=False,
    )

    def clean(self):
        data = super().clean()
        raw = data.get("phone")
        if not raw:
            return data
        phone = phones.normalise(raw)
        chosen = data.get("network") or AUTO
        network = None if chosen == AUTO else chosen
        problem = phones.phone_problem(phone, network)
        if problem == phones.PHONE_NETWORK_MISMATCH:
            owner = NETWORK_LABELS.get(phones.network_for(phone), "")
            self.add_error(
                "network",
                _("This number belongs to %(owner)s, not %(network)s.")
                % {"owner": owner, "network": NETWORK_LABELS[network]},
            )
            return data
        if problem:
            self.add_error(
                "phone",
                _(
                    "Enter a DR Congo mobile number: 10 digits starting with 08 or 09 "
                    "(e.g. 0812 345 678), or +243 followed by 9 digits."
                ),
            )
            return data
        if network is None:
            network = phones.network_for(phone)
            if network is None:
                self.add_error(
                    "network", _("We cannot tell the operator from this number: choose it.")
                )
                return data
        data["phone"] = phone
        data["network"] = network
        return data

    def _post_clean(self):
        super()._post_clean()
        for name in self.errors:
            if name in self.fields:
                attrs = self.fields[name].widget.attrs
                described = " ".join(filter(None, [f"{name}-error", attrs.get("aria-describedby")]))
                attrs.update({"aria-invalid": "true", "aria-describedby": described})
