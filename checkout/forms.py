"""The hosted page's mobile money form: the API's reading of typed numbers and its phone rules
(payments.phones), the networks the page cannot offer now, messages in the customer's language."""

from django import forms
from django.utils import translation
from django.utils.translation import gettext_lazy as _

from core.money import format_customer_amount
from payments import phones
from payments.models import Network
from payments.selectors import network_limits

AUTO = "auto"
NETWORK_LABELS = dict(Network.choices)  # the display names the networks' adapters declare


class DescribedField(forms.BoundField):
    """A field whose errors are read out with it: a field in error is aria-invalid (Django's own
    doing) and described first by its message, whose id is "<name>-error" (pay.html), then by
    what its widget says describes it (the phone's help)."""

    def build_widget_attrs(self, attrs, widget=None):
        attrs = super().build_widget_attrs(attrs, widget)
        if self.errors:
            described = (widget or self.field.widget).attrs.get("aria-describedby")
            attrs["aria-describedby"] = " ".join(filter(None, [f"{self.name}-error", described]))
        return attrs


class MobileMoneyForm(forms.Form):
    bound_field_class = DescribedField
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

    def __init__(self, *args, amount: int = 0, currency: str = "", unavailable=None, **kwargs):
        """`unavailable`: network → "closed" | "limits" (checkout.services.session_networks);
        those networks are not offered, and a number of theirs is refused with the reason."""
        super().__init__(*args, **kwargs)
        self.amount, self.currency = amount, currency
        self.unavailable = {network: why for network, why in (unavailable or {}).items() if why}
        self.fields["network"].widget.choices = [
            (value, label)
            for value, label in self.fields["network"].choices
            if value not in self.unavailable
        ]

    @property
    def offered_networks(self) -> list[str]:
        """The codes of the networks the page offers, in order."""
        return [network for network in NETWORK_LABELS if network not in self.unavailable]

    @property
    def offered(self) -> list[str]:
        """The display names of the networks the page offers, in order."""
        return [NETWORK_LABELS[network] for network in self.offered_networks]

    def unavailable_message(self, network: str) -> str:
        label = NETWORK_LABELS[network]
        if self.unavailable.get(network) == "closed":
            return _("%(network)s is unavailable at the moment.") % {"network": label}
        low, high = network_limits(network=network, currency=self.currency)
        language = (translation.get_language() or "fr")[:2]
        return _("%(network)s takes payments of %(min)s to %(max)s only.") % {
            "network": label,
            "min": format_customer_amount(low, self.currency, language),
            "max": format_customer_amount(high, self.currency, language),
        }

    @property
    def unavailable_messages(self) -> list[tuple[str, str]]:
        return [(network, self.unavailable_message(network)) for network in self.unavailable]

    def clean(self):
        data = super().clean()
        raw = data.get("phone")
        if not raw:
            return data
        prediction = phones.predict(raw)
        chosen = data.get("network") or AUTO
        network = None if chosen == AUTO else chosen
        if prediction is None:
            self.add_error(
                "phone",
                _(
                    "Enter a DR Congo mobile number: 10 digits starting with 08 or 09 "
                    "(e.g. 0812 345 678), or +243 followed by 9 digits."
                ),
            )
            return data
        phone = prediction.phone
        if phones.phone_problem(phone, network) == phones.PHONE_NETWORK_MISMATCH:
            self.add_error(
                "network",
                _("This number belongs to %(owner)s, not %(network)s.")
                % {"owner": NETWORK_LABELS[prediction.network], "network": NETWORK_LABELS[network]},
            )
            return data
        network = network or prediction.network
        if network is None:
            self.add_error("network", _("We cannot tell the operator from this number: choose it."))
            return data
        if network in self.unavailable:
            self.add_error(
                "network" if chosen != AUTO else "phone",
                _("%(reason)s Pay with a number of another operator.")
                % {"reason": self.unavailable_message(network)},
            )
            return data
        data["phone"] = phone
        data["network"] = network
        return data
