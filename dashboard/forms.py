"""The dashboard's forms: sign-up with the business's name, the team, the settings."""

from allauth.account.forms import SignupForm as AllauthSignupForm
from django import forms
from django.db import transaction
from django.utils.translation import gettext_lazy as _

from dashboard import services
from dashboard.models import Role
from payments.models import Merchant


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
    """The merchant's name and support contact, checked by the model's own rules; saved by
    services.business_update (which audits), never by the form."""

    class Meta:
        model = Merchant
        fields = ["name", "support_email", "support_phone"]
        labels = {
            "name": _("Business name"),
            "support_email": _("Support e-mail"),
            "support_phone": _("Support phone"),
        }


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
