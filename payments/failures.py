"""What a failure code means, in the words of the reader's language.

A charge's, refund's or payout's `failure_message` is the provider's or the service's own words,
in English, as the API gives them; the dashboard speaks French by default. Each stable code
(`failure_code`) has its words here, marked for translation; a code without words (a provider's
rare one) shows its stored message."""

from django.utils.translation import gettext_lazy as _

FAILURE_WORDS = {
    "insufficient_funds": _("The customer's balance was too low."),
    "customer_rejected": _("The customer refused the payment."),
    "invalid_pin": _("The customer entered a wrong PIN."),
    "account_inactive": _("The customer's mobile money account is not active."),
    "timeout": _("The customer did not answer in time."),
    "abandoned": _("The customer did not finish the card payment in time."),
    "canceled": _("The customer canceled the payment."),
    "card_declined": _("The card was declined."),
    "partial_approval": _("The card issuer approved only part of the amount."),
    "provider_error": _("The operator could not process it."),
    "processing_error": _("The provider could not process it."),
    "amount_invalid": _("The operator does not accept this amount."),
    "limit_exceeded": _("The amount is over a limit of the account."),
    "phone_invalid": _("The phone number is not valid for this network."),
    "recipient_invalid": _("The recipient cannot receive this payout."),
    "balance_insufficient": _("The balance was too low for this payout."),
    "network_unavailable": _("The network is closed for now."),
    "partial_refund_not_supported": _("The provider refunds whole payments only."),
}


def failure_words(code: str, message: str = "") -> str:
    """The failure in the active language: the code's words, or else the stored message, or else
    the code itself."""
    words = FAILURE_WORDS.get(code or "")
    return str(words) if words is not None else (message or code or "")
