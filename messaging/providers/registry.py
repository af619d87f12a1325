"""The SMS adapter SMS_PROVIDER names."""

from django.conf import settings
from django.utils.module_loading import import_string

ADAPTERS = {
    "console": "messaging.providers.console.ConsoleSms",
    "orange": "messaging.providers.orange.OrangeSms",
    "twilio": "messaging.providers.twilio.TwilioSms",
    "africastalking": "messaging.providers.africastalking.AfricasTalkingSms",
}


def adapter(name: str | None = None):
    """A new adapter of `name` (SMS_PROVIDER by default)."""
    return import_string(ADAPTERS[name or settings.SMS_PROVIDER])()
