"""The forms of the money pages. They read what a person types (amounts in francs or dollars,
phone numbers as people write them) and hand it to the API's own checks and services: the
rules and their messages are the API's, said in the page's language."""

import re
from decimal import Decimal, InvalidOperation

from django import forms
from django.utils import timezone
from django.utils.dates import WEEKDAYS
from django.utils.formats import number_format
from django.utils.translation import gettext_lazy as _
from rest_framework.exceptions import ValidationError as SerializerError

from batches.parsing import MAX_BYTES, too_large
from core.api.fields import AMOUNT_MAX
from core.errors import ApiError
from core.money import MINOR_PER_UNIT
from dashboard import words
from dashboard.pages.once import FIELD, new_key
from links.serializers import LINK_DESCRIPTION_MAX, LinkCreateIn
from payments import phones
from payments.models import (
    KEY_NAME_MAX,
    MERCHANT_REFUND_REASONS,
    Currency,
    Network,
    RefundReason,
    SettlementAccountType,
    SettlementInterval,
)
from payments.serializers import PayoutCreateIn, SettlementAccountCreateIn, check_drc_phone
from webhooks.api.serializers import WebhookEndpointIn

# Digits with spaces (also non-breaking) or apostrophes between thousands, and one decimal
# separator, a dot or a comma, with at most two digits after it.
AMOUNT = re.compile(
    r"[0-9]{1,3}(?:[ \u00a0\u202f']?[0-9]{3})*(?:[.,][0-9]{1,2})?|[0-9]+(?:[.,][0-9]{1,2})?"
)


def minor_units(text: str) -> int | None:
    """`25`, `25.5`, `25,50`, `2 500` → 2500, 2550, 2550, 250000 (minor units, exactly: no
    float on the way), or None when it is no amount with at most two decimals."""
    text = text.strip()
    if AMOUNT.fullmatch(text) is None:
        return None
    digits = re.sub(r"[ \u00a0\u202f']", "", text).replace(",", ".")
    try:
        return int(Decimal(digits) * MINOR_PER_UNIT)
    except InvalidOperation:
        return None


class MajorAmountField(forms.CharField):
    """An amount typed in francs or dollars (`2 500`, `12,50`), cleaned to minor units."""

    def __init__(self, **kwargs):
        kwargs.setdefault("max_length", 40)
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "decimal"}))
        super().__init__(**kwargs)

    def clean(self, value):
        text = super().clean(value)
        if not text:
            return None
        amount = minor_units(text)
        if amount is None or amount < 1:
            raise forms.ValidationError(
                _(
                    "Give an amount in francs or dollars, with at most two decimals (e.g. 2500 or 12.50)."
                ),
                code="amount_invalid",
            )
        return amount


def whole_units_words(amount: int, currency: str) -> str:
    """`12,50` typed for mobile money: the whole amounts either side, as a shopkeeper says them
    (`Mobile money is paid in whole francs: 12 or 13 CDF`)."""
    low = amount // MINOR_PER_UNIT
    said = {
        "low": number_format(low, force_grouping=True),
        "high": number_format(low + 1, force_grouping=True),
        "currency": currency,
    }
    if currency == Currency.USD:
        return (
            str(_("Mobile money is paid in whole dollars: %(low)s or %(high)s %(currency)s."))
            % said
        )
    return str(_("Mobile money is paid in whole francs: %(low)s or %(high)s %(currency)s.")) % said


# The API's errors that speak to integrators (a parameter's name, minor units, E.164), said to a
# person instead: by the error's code and the parameter it is about.
PHONE_WORDS = _(
    "Enter a DRC mobile number: 10 digits starting with 08 or 09 (e.g. 0812 345 678), or +243 "
    "then 9 digits."
)
NETWORK_WORDS = _(
    "This number is not on the chosen network: choose its network, or “From the number”."
)


class ServiceForm(forms.Form):
    """A form whose values a service of the API checks: its errors shown on the form, in a
    shopkeeper's words (people_words), never an API parameter's name or minor units."""

    # The currency of the amount when the form has no currency field (a refund: the charge's).
    currency_of_amount = ""

    def people_words(self, *, param: str | None, code: str, message: str) -> str:
        """The API's `message` (code, param) as the dashboard says it."""
        data = getattr(self, "cleaned_data", {}) or {}
        amount = data.get("amount")
        currency = data.get("currency") or self.currency_of_amount
        if param == "amount" and code == "amount_invalid" and isinstance(amount, int) and currency:
            if amount % MINOR_PER_UNIT:
                return whole_units_words(amount, currency)
            if amount > AMOUNT_MAX:
                return str(_("This amount is too large."))
        if param == "phone" and code == phones.PHONE_INVALID:
            return str(PHONE_WORDS)
        if param in ("phone", "network") and code == phones.PHONE_NETWORK_MISMATCH:
            return str(NETWORK_WORDS)
        field = self.fields.get(param or "")
        if field is None:
            return message
        if code in ("parameter_missing", "required"):
            if param == "amount" and "custom_amount" in self.fields:
                return str(_("Enter the amount, or let the customer choose it."))
            return str(forms.Field.default_error_messages["required"])
        # "expires_at must be in the future." → "“Expires at (UTC)” must be in the future.": the
        # form's fields named as the API names them (custom_amount, max_payments…), and the
        # parameter a message begins with ("amount must…"), said by their labels. A plain word
        # ("the amount (200.00 CDF)…") is left alone.
        for name, other in self.fields.items():
            named = str(_("“%(label)s”")) % {"label": other.label}
            if "_" in name:
                message = re.sub(
                    rf"(?<![\w.]){re.escape(name)}(?:: (?:true|false))?(?![\w])",
                    lambda _m, named=named: named,
                    message,
                )
            elif name == param and message.startswith(f"{name} "):
                message = named + message[len(name) :]
        return message

    def add_api_error(self, error: ApiError) -> None:
        """An error of the service, in words (its amounts as people read them), under the field it
        is about."""
        field = error.param if error.param in self.fields else None
        said = self.people_words(param=error.param, code=error.code, message=error.for_people())
        self.add_error(field, said)

    def add_serializer_errors(self, error: SerializerError, names: dict[str, str]) -> None:
        """The API's validation errors; `names`: API parameter → form field."""
        detail = error.detail if isinstance(error.detail, dict) else {None: error.detail}
        for param, messages in detail.items():
            field = names.get(param)
            for message in messages if isinstance(messages, list) else [messages]:
                code = getattr(message, "code", "") or ""
                said = self.people_words(param=param, code=code, message=str(message))
                self.add_error(field if field in self.fields else None, said)


class OnceForm(ServiceForm):
    """A form sent once: its idempotency key, fresh on every new form (dashboard.pages.once)."""

    idempotency_key = forms.CharField(widget=forms.HiddenInput, required=False, max_length=255)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not self.is_bound:
            self.initial[FIELD] = new_key()


class KeyForm(OnceForm):
    """A new API key and what it is for."""

    name = forms.CharField(
        label=_("Key name"),
        required=False,
        max_length=KEY_NAME_MAX,
        help_text=_("What the key is for, e.g. Shop website."),
    )


class RefundForm(OnceForm):
    amount = MajorAmountField(
        label=_("Amount"),
        required=False,
        help_text=_("Leave empty to refund what remains."),
    )
    reason = forms.ChoiceField(
        label=_("Reason"),
        required=False,
        choices=[("", "—")]
        + [
            (value, label)
            for value, label in RefundReason.choices
            if value in MERCHANT_REFUND_REASONS
        ],
    )


def _typed_phone(form: ServiceForm, raw: str, network: str) -> tuple[str, str] | None:
    """A DRC mobile number as people type it (payments.phones) and its network, the number's
    operator when none is chosen; None with the reason on the form's `phone` or `network`."""
    prediction = phones.predict(raw)
    phone = prediction.phone if prediction else raw
    network = network or (prediction.network if prediction else "") or ""
    if not network:  # no DRC mobile number, or a prefix no operator is known for
        try:
            check_drc_phone(phone, None)
        except SerializerError as error:
            form.add_serializer_errors(error, {"phone": "phone"})
            return None
        form.add_error("network", _("Choose the network: the number's operator is not known."))
        return None
    return phone, network


class PayoutForm(OnceForm):
    phone = forms.CharField(
        label=_("Phone number"),
        max_length=40,
        help_text=_("e.g. 0812 345 678 or +243 81 234 5678"),
        widget=forms.TextInput(attrs={"inputmode": "tel", "autocomplete": "off"}),
    )
    amount = MajorAmountField(label=_("Amount"), help_text=_("In francs or dollars: 2500 or 12.50"))
    currency = forms.ChoiceField(label=_("Currency"), choices=Currency.choices)
    network = forms.ChoiceField(
        label=_("Network"),
        required=False,
        choices=[("", _("From the number"))] + list(Network.choices),
    )
    description = forms.CharField(label=_("Description"), required=False, max_length=1000)

    def payout_fields(self, *, livemode: bool, merchant) -> dict | None:
        """The payout's fields checked by the API's own serializer (POST /v1/payouts), or None
        with its errors on the form. The number is read as people type it (payments.phones);
        without a network, the number's operator is taken."""
        if not self.is_valid():
            return None
        data = self.cleaned_data
        typed = _typed_phone(self, data["phone"], data["network"])
        if typed is None:
            return None
        phone, network = typed
        body = {
            "amount": data["amount"],
            "currency": data["currency"],
            "phone": phone,
            "network": network,
        }
        if data["description"]:
            body["description"] = data["description"]
        serializer = PayoutCreateIn(data=body, context={"livemode": livemode, "merchant": merchant})
        try:
            serializer.is_valid(raise_exception=True)
        except SerializerError as error:
            self.add_serializer_errors(error, {name: name for name in body})
            return None
        return dict(serializer.validated_data)


class PaymentLinkForm(OnceForm):
    description = forms.CharField(
        label=_("Description"),
        max_length=LINK_DESCRIPTION_MAX,
        help_text=_("What is sold, shown on the link's page."),
    )
    currency = forms.ChoiceField(label=_("Currency"), choices=Currency.choices)
    amount = MajorAmountField(
        label=_("Amount"),
        required=False,
        help_text=_("In francs or dollars: 2500 or 12.50"),
    )
    custom_amount = forms.BooleanField(
        label=_("The customer chooses the amount"),
        required=False,
        help_text=_("Leave the amount empty then."),
    )
    max_payments = forms.IntegerField(
        label=_("Maximum number of payments"),
        required=False,
        min_value=1,
        help_text=_("Leave empty for no limit."),
    )
    expires_at = forms.DateTimeField(
        label=_("Expires at (your time zone)"),
        required=False,
        help_text=_("Leave empty for a link that does not expire."),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
    )
    success_url = forms.CharField(
        label=_("Page after payment"),
        required=False,
        max_length=2000,
        help_text=_("Optional: an https address of yours; otherwise the service's own page."),
        widget=forms.URLInput(),
    )

    def link_fields(self, *, livemode: bool, merchant) -> tuple[dict, dict] | None:
        """The link as POST /v1/payment_links would receive it (its body, and the values the
        API's own serializer made of it), or None with the serializer's errors on the form.
        The amount typed in francs or dollars is in minor units (MajorAmountField); a date and
        time is read in the merchant's time zone (the page's, activated by merchant_view)."""
        if not self.is_valid():
            return None
        data = self.cleaned_data
        body = {"currency": data["currency"], "description": data["description"]}
        if data["amount"] is not None:
            body["amount"] = data["amount"]
        if data["custom_amount"]:
            body["custom_amount"] = True
        if data["max_payments"] is not None:
            body["max_payments"] = data["max_payments"]
        if data["expires_at"] is not None:
            body["expires_at"] = data["expires_at"].isoformat()
        if data["success_url"].strip():
            body["success_url"] = data["success_url"].strip()
        serializer = LinkCreateIn(data=body, context={"livemode": livemode, "merchant": merchant})
        try:
            serializer.is_valid(raise_exception=True)
        except SerializerError as error:
            self.add_serializer_errors(error, {name: name for name in body})
            return None
        return body, dict(serializer.validated_data)


class BatchUploadForm(OnceForm):
    file = forms.FileField(
        label=_("CSV file"),
        help_text=_(
            "Columns phone, amount, currency, network, reference, description; at most 1 MB."
        ),
        # data-max-bytes: the page refuses a larger file before sending it (a file over the
        # service's body limit would otherwise meet the proxy's bare 413, not words), saying
        # data-too-large (__init__).
        widget=forms.FileInput(attrs={"accept": ".csv,text/csv", "data-max-bytes": MAX_BYTES}),
    )

    # The draft this file corrects (sent from that draft's page): deleted once the file is read.
    replaces = forms.CharField(widget=forms.HiddenInput, required=False, max_length=40)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["file"].widget.attrs["data-too-large"] = too_large()

    def file_data(self) -> bytes | None:
        """The file's bytes (no more than one past MAX_BYTES: batches.parsing refuses a larger
        file in words, as it judges the rest), or None with the reason on the form."""
        if not self.is_valid():
            return None
        return self.cleaned_data["file"].read(MAX_BYTES + 1)


class WebhookEndpointForm(ServiceForm):
    url = forms.CharField(
        label=_("Webhook URL"),
        required=False,
        max_length=2000,
        help_text=_("Leave empty to stop sending events (they are still kept)."),
        widget=forms.URLInput(),
    )

    def endpoint_url(self, *, livemode: bool) -> str | None:
        """The URL checked as POST /v1/webhook_endpoint checks it ("" stops sending), or None
        with the error on the form."""
        if not self.is_valid():
            return None
        url = self.cleaned_data["url"].strip()
        serializer = WebhookEndpointIn(data={"url": url or None}, context={"livemode": livemode})
        try:
            serializer.is_valid(raise_exception=True)
        except SerializerError as error:
            self.add_serializer_errors(error, {"url": "url"})
            return None
        return serializer.validated_data["url"] or ""


class SettlementAccountForm(OnceForm):
    """A settlement account of either mode (the settlement settings are one page for both),
    checked by the API's own serializer (POST /v1/settlement_accounts)."""

    TYPE = ""
    mode = forms.ChoiceField(
        label=_("Mode"), choices=[("live", _("Live")), ("test", _("Test"))], initial="test"
    )
    currency = forms.ChoiceField(label=_("Currency"), choices=Currency.choices)

    def body(self) -> dict | None:
        raise NotImplementedError

    def account_fields(self) -> dict | None:
        """The account as POST /v1/settlement_accounts takes it, checked by its serializer, or
        None with the errors on the form."""
        if not self.is_valid():
            return None
        body = self.body()
        if body is None:
            return None
        serializer = SettlementAccountCreateIn(data={"type": self.TYPE, **body})
        try:
            serializer.is_valid(raise_exception=True)
        except SerializerError as error:
            self.add_serializer_errors(error, {name: name for name in body})
            return None
        return dict(serializer.validated_data)


class BankAccountForm(SettlementAccountForm):
    TYPE = SettlementAccountType.BANK_ACCOUNT
    bank_name = forms.CharField(label=_("Bank"), max_length=100, help_text=_("e.g. Rawbank"))
    account_holder = forms.CharField(
        label=_("Account holder"),
        max_length=200,
        help_text=_("The name the bank knows the account by."),
    )
    account_number = forms.CharField(
        label=_("Account number"),
        max_length=60,
        help_text=_(
            "8 to 34 letters and digits; spaces are ignored. Only its last four are shown "
            "afterwards."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )
    swift = forms.CharField(
        label=_("SWIFT/BIC code"),
        max_length=20,
        help_text=_("8 or 11 letters and digits, e.g. RAWBCDKI"),
        widget=forms.TextInput(attrs={"autocomplete": "off", "spellcheck": "false"}),
    )

    def body(self) -> dict:
        data = self.cleaned_data
        names = ("currency", "bank_name", "account_holder", "account_number", "swift")
        return {name: data[name] for name in names}


class WalletForm(SettlementAccountForm):
    TYPE = SettlementAccountType.MOBILE_MONEY
    phone = forms.CharField(
        label=_("Your business's mobile money number"),
        max_length=40,
        help_text=_("e.g. 0812 345 678 or +243 81 234 5678. The holder is your business's name."),
        widget=forms.TextInput(attrs={"inputmode": "tel", "autocomplete": "off"}),
    )
    network = forms.ChoiceField(
        label=_("Network"),
        required=False,
        choices=[("", _("From the number"))] + list(Network.choices),
    )

    def body(self) -> dict | None:
        data = self.cleaned_data
        typed = _typed_phone(self, data["phone"], data["network"])
        if typed is None:
            return None
        phone, network = typed
        return {"currency": data["currency"], "phone": phone, "network": network}


class SettlementForm(OnceForm):
    """A withdrawal: the currency, an amount (all that is available by default) and one of the
    mode's accounts (the currency's default by default). `confirmed` once its fee was shown."""

    currency = forms.ChoiceField(label=_("Currency"), choices=Currency.choices)
    amount = MajorAmountField(
        label=_("Amount"),
        required=False,
        help_text=_("In francs or dollars. Leave empty to withdraw all you can, less the fee."),
    )
    settlement_account = forms.ChoiceField(label=_("To"), required=False)
    confirmed = forms.BooleanField(required=False, widget=forms.HiddenInput)

    def __init__(self, *args, accounts=(), time_zone: str = "Africa/Kinshasa", **kwargs):
        super().__init__(*args, **kwargs)
        now = timezone.now()
        choices = [("", _("The currency's default account"))]
        for account in accounts:
            label = words.account_name(account)
            if account.available_from > now:
                label = _("%(account)s, on hold until %(when)s") % {
                    "account": label,
                    "when": words.local_moment(account.available_from, time_zone),
                }
            choices.append((account.id, label))
        self.fields["settlement_account"].choices = choices


class ScheduleForm(forms.Form):
    """One currency's schedule of automatic settlements."""

    interval = forms.ChoiceField(label=_("Settle"), choices=SettlementInterval.choices)
    weekday = forms.TypedChoiceField(
        label=_("Day of the week"),
        choices=list(WEEKDAYS.items()),
        coerce=int,
        initial=0,
        help_text=_("For a weekly schedule: at 00:00 of that day, in your time zone."),
    )
    minimum = MajorAmountField(
        label=_("Minimum"),
        required=False,
        help_text=_("No automatic settlement of less than this; empty: none."),
    )
