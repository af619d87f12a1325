"""The dashboard's forms: sign-up with the business's name, the team, the settings, the
application for live mode."""

import re

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from core.money import MINOR_PER_UNIT
from dashboard import documents, services
from dashboard.activation import VALUES
from dashboard.models import ActivationApplication, Role
from dashboard.pages.forms import MajorAmountField
from payments import phones
from payments.models import Merchant, Network, SettlementAccountType
from payments.services import settlements


class SignupForm(AllauthSignupForm):
    """allauth's sign-up (`email`, `password1`, `password2`) and `business_name`: the new user
    becomes the owner of a new merchant (test mode at once), in one transaction. Someone invited
    may leave the business name empty and only join: the open invitations to the address whose
    link was opened in this browser are accepted (the link is the proof that the mail was read;
    the address itself is verified before the first sign-in). Without the link, the new user
    joins nothing, and opens the link once signed in."""

    business_name = forms.CharField(label=_("Business name"), max_length=200, required=False)
    field_order = ["email", "business_name", "password1", "password2"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["business_name"].widget.attrs["autocomplete"] = "organization"
        self.invitations = []
        # The invitation's sign-up link names the invited address (?email=, allauth's initial):
        # whoever comes to join a team is not asked for a business of their own.
        email = self.data.get("email") if self.is_bound else self.initial.get("email")
        if services.open_invitations(email or "") and not self.data.get("business_name"):
            del self.fields["business_name"]

    def clean(self):
        cleaned = super().clean()
        self.invitations = services.open_invitations(cleaned.get("email") or "")
        if not self.invitations and not (cleaned.get("business_name") or "").strip():
            self.add_error("business_name", _("Enter your business's name."))
        return cleaned

    def try_save(self, request):
        with transaction.atomic():
            return super().try_save(request)

    def save(self, request):
        user = super().save(request)
        name = (self.cleaned_data.get("business_name") or "").strip()
        if name:
            services.merchant_signup(request, user=user, business_name=name)
        for invitation in services.invitations_seen(request, user.email):
            services.invitation_accept(request, invitation, user)
        return user


class BusinessForm(forms.ModelForm):
    """The merchant's name, support contact and time zone, checked by the model's own rules, and
    whether its customers get a receipt by SMS; saved by services.business_update (which audits),
    never by the form."""

    # Radio buttons, one always checked: a form without the field changes nothing.
    sms_receipts = forms.ChoiceField(
        label=_("Send customers a receipt by SMS"),
        help_text=_(
            "After each payment, the phone that paid receives a short text message with the "
            "amount, the operator's reference and a link to the receipt."
        ),
        choices=[("on", _("Yes, after each payment")), ("off", _("No"))],
        widget=forms.RadioSelect,
        required=False,
    )

    def clean_sms_receipts(self) -> bool | None:
        return {"on": True, "off": False}.get(self.cleaned_data.get("sms_receipts"))

    class Meta:
        model = Merchant
        fields = ["name", "support_email", "support_phone", "time_zone"]
        labels = {
            "name": _("Business name"),
            "support_email": _("Support e-mail"),
            "support_phone": _("Support phone"),
            "time_zone": _("Time zone"),
        }
        help_texts = {
            "time_zone": _(
                "The times of the dashboard, the mails and the downloads for people; the API "
                "and the downloads for machines stay in UTC."
            ),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # A form sent without the zone (an older page, a script) keeps the merchant's.
        self.fields["time_zone"].required = False

    def clean_time_zone(self):
        return self.cleaned_data["time_zone"] or self.initial.get("time_zone", "Africa/Kinshasa")


class InviteForm(forms.Form):
    email = forms.EmailField(label=_("E-mail address"))
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices, initial=Role.VIEWER)


class RoleForm(forms.Form):
    role = forms.ChoiceField(label=_("Role"), choices=Role.choices)


class SecurityForm(forms.Form):
    require_two_factor = forms.BooleanField(
        label=_("Require two-factor authentication for the whole team"), required=False
    )
    require_second_approver = forms.ChoiceField(
        label=_("Second approver for payout batches"),
        choices=[
            ("", _("Automatic: required once two members may pay out")),
            ("on", _("Always required")),
            ("off", _("Never required")),
        ],
        required=False,
    )
    # Radio buttons, one always checked: a form without the field changes nothing.
    api_payouts_enabled = forms.ChoiceField(
        label=_("Payouts by API with a live key"),
        choices=[("on", _("Allowed")), ("off", _("Refused"))],
        widget=forms.RadioSelect,
        required=False,
    )


def _major(amount: int) -> str:
    """Minor units as a person types the amount back: 2500000 → `25000`, 1250 → `12.50`."""
    units, cents = divmod(amount, MINOR_PER_UNIT)
    return f"{units}.{cents:02d}" if cents else str(units)


class ActivationForm(forms.ModelForm):
    """The owner's application for live mode, one form on one page; every field may wait while
    it is a draft (dashboard.activation says what is missing before it can be submitted). Read,
    checked and handed to dashboard.activation, never saved by the form: the settlement account
    as payments checks one, the documents by their content and size (dashboard.documents)."""

    monthly_volume = MajorAmountField(
        label=_("Expected monthly volume"),
        required=False,
        help_text=_("What your customers should pay you in a month, in francs or dollars."),
    )
    website = forms.URLField(
        label=_("Website or social page"),
        required=False,
        max_length=300,
        assume_scheme="https",
        help_text=_("e.g. https://www.facebook.com/yourshop"),
        # Typed as people write it (facebook.com/yourshop): no browser check of its own.
        widget=forms.TextInput(attrs={"inputmode": "url", "autocomplete": "url"}),
    )
    account_type = forms.ChoiceField(
        label=_("Settlement account"),
        required=False,
        widget=forms.RadioSelect,
        choices=[],
    )
    account_phone = forms.CharField(
        label=_("Mobile money number"),
        required=False,
        max_length=30,
        help_text=_("Your business's own number, e.g. 0812 345 678"),
        widget=forms.TextInput(attrs={"inputmode": "tel", "autocomplete": "off"}),
    )

    class Meta:
        model = ActivationApplication
        fields = [
            "legal_name",
            "rccm_number",
            "id_nat",
            "nif",
            "address",
            "city",
            "activity",
            "website",
            "representative_name",
            "representative_phone",
            "monthly_volume",
            "monthly_volume_currency",
            "account_type",
            "account_currency",
            "bank_name",
            "account_holder",
            "account_number",
            "swift",
            "account_phone",
            "account_network",
            *ActivationApplication.DOCUMENTS,
        ]
        labels = {
            "legal_name": _("Legal name of the business"),
            "rccm_number": _("RCCM number"),
            "id_nat": _("Id. Nat. (national identification number)"),
            "nif": _("NIF (tax number)"),
            "address": _("Address"),
            "city": _("City"),
            "activity": _("Activity"),
            "representative_name": _("Representative's full name"),
            "representative_phone": _("Representative's phone"),
            "monthly_volume_currency": _("Currency of the volume"),
            "account_currency": _("Currency of the account"),
            "bank_name": _("Bank"),
            "account_holder": _("Account holder"),
            "account_number": _("Account number"),
            "swift": _("SWIFT/BIC code"),
            "account_network": _("Network"),
            "rccm_certificate": _("RCCM certificate"),
            "id_nat_certificate": _("Id. Nat. certificate"),
            "representative_id": _("Representative's identity document"),
        }
        help_texts = {
            "activity": _("What you sell, and to whom."),
            "representative_phone": _("e.g. +243 81 234 5678"),
            "account_number": _("8 to 34 letters and digits; shown again only by its last four."),
            "account_network": _("From the number when left empty."),
            "representative_id": _("Passport, national identity card or voter's card."),
        }

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        application = self.instance
        account = application.settlement_account
        keep = (
            _("Keep the account given: %(account)s") % {"account": account_words(account)}
            if account is not None and account.removed_at is None
            else _("Not yet")
        )
        self.fields["account_type"].choices = [("", keep), *SettlementAccountType.choices]
        if application.monthly_volume:
            self.initial["monthly_volume"] = _major(application.monthly_volume)
        for name in ("monthly_volume_currency", "account_currency", "account_network"):
            self.fields[name].choices = [("", "—"), *self.fields[name].choices[1:]]
        for name in ActivationApplication.DOCUMENTS:
            field = self.fields[name]
            field.widget = forms.FileInput(
                attrs={
                    "accept": documents.ACCEPT,
                    "data-max-bytes": documents.max_bytes(),
                    "data-too-large": documents.too_large(),
                }
            )
            field.help_text = _("PDF, JPEG or PNG, at most %(size)s MB.") % {
                "size": documents.max_megabytes()
            }
        self.fields["legal_name"].widget.attrs["autocomplete"] = "organization"
        self.fields["address"].widget.attrs["autocomplete"] = "street-address"
        self.fields["representative_phone"].widget.attrs.update(
            {"inputmode": "tel", "autocomplete": "tel"}
        )

    def _document(self, name: str):
        value = self.cleaned_data.get(name)
        if not isinstance(value, UploadedFile):
            return value  # none sent: the one kept, if any
        extension = documents.check(value)
        value.name = f"{name}.{extension}"
        return value

    def clean_rccm_certificate(self):
        return self._document("rccm_certificate")

    def clean_id_nat_certificate(self):
        return self._document("id_nat_certificate")

    def clean_representative_id(self):
        return self._document("representative_id")

    def clean(self):
        data = super().clean()
        kind = data.get("account_type") or ""
        bank = ("bank_name", "account_holder", "account_number", "swift")
        mobile = ("account_phone", "account_network")
        if kind == SettlementAccountType.BANK_ACCOUNT:
            number = re.sub(r"\s+", "", data.get("account_number") or "").upper()
            if number and not settlements.ACCOUNT_NUMBER.match(number):
                self.add_error(
                    "account_number", _("An account number is 8 to 34 letters and digits.")
                )
            swift = re.sub(r"\s+", "", data.get("swift") or "").upper()
            if swift and not settlements.SWIFT.match(swift):
                self.add_error("swift", _("A SWIFT/BIC code is 8 or 11 letters and digits."))
            data.update(account_number=number, swift=swift, **dict.fromkeys(mobile, ""))
        elif kind == SettlementAccountType.MOBILE_MONEY:
            self._clean_wallet(data)
            data.update(dict.fromkeys(bank, ""))
        else:
            data.update(dict.fromkeys((*bank, *mobile, "account_currency"), ""))
        return data

    def _clean_wallet(self, data: dict) -> None:
        """The number as people type it, in E.164; its network from its prefix unless chosen."""
        typed = (data.get("account_phone") or "").strip()
        if not typed:
            return
        prediction = phones.predict(typed)
        if prediction is None:
            self.add_error(
                "account_phone",
                _("Give a DRC mobile number, e.g. 0812 345 678 or +243 81 234 5678."),
            )
            return
        network = data.get("account_network") or prediction.network or ""
        if not network:
            self.add_error(
                "account_network", _("Choose the network: the number's operator is not known.")
            )
            return
        if phones.phone_problem(prediction.phone, network or None):
            self.add_error(
                "account_network",
                _("The number %(phone)s belongs to %(owner)s, not %(network)s.")
                % {
                    "phone": prediction.phone,
                    "owner": Network(prediction.network).label,
                    "network": Network(network).label,
                },
            )
            return
        data.update(account_phone=prediction.phone, account_network=network)

    def values(self) -> dict:
        return {name: self.cleaned_data.get(name) for name in VALUES}

    def uploads(self) -> dict:
        return {
            name: self.cleaned_data[name]
            for name in ActivationApplication.DOCUMENTS
            if isinstance(self.cleaned_data.get(name), UploadedFile)
        }


def account_words(account) -> str:
    """A settlement account as its owner reads it: the bank or the network, and the last four."""
    where = account.bank_name if account.type == SettlementAccountType.BANK_ACCOUNT else None
    where = where or account.get_network_display() or account.get_type_display()
    return f"{where} ···{account.last4} ({account.currency})"


class NotificationForm(forms.Form):
    """A member's notices: e-mail and/or SMS per kind (only the kinds the role may hear of),
    and the phone the SMS go to, typed as people write it and kept in E.164."""

    phone = forms.CharField(
        label=_("Your mobile phone for SMS"),
        required=False,
        max_length=30,
        help_text=_("For example 0812 345 678 or +243 81 234 5678."),
    )

    def __init__(self, *args, kinds=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.kinds = list(kinds)
        for kind in self.kinds:
            for channel in ("email", "sms"):
                self.fields[f"{kind}_{channel}"] = forms.BooleanField(
                    required=False,
                    widget=forms.CheckboxInput(
                        attrs={"data-notify": kind, "data-channel": channel}
                    ),
                )

    def clean_phone(self):
        typed = self.cleaned_data["phone"].strip()
        if not typed:
            return ""
        number = phones.normalise(typed)
        if number is None or not phones.is_valid_drc_mobile(number):
            raise forms.ValidationError(
                _("Enter a Congolese mobile number, for example 0812 345 678.")
            )
        return number

    def clean(self):
        cleaned = super().clean()
        wants_sms = any(cleaned.get(f"{kind}_sms") for kind in self.kinds)
        if wants_sms and not cleaned.get("phone") and "phone" not in self.errors:
            self.add_error("phone", _("Enter your mobile number to get notices by SMS."))
        return cleaned
