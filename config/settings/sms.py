"""Text messages (contract §23): the SMS vendor (SMS_PROVIDER), its credentials and the sender
name, the retries. A vendor chosen without its credentials stops the service at start.
See docs/operations/sms.md."""

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import env

SMS_PROVIDER = env.str("SMS_PROVIDER", default="console")
# The sender name customers see (the vendor must have registered it for the account).
SMS_SENDER_NAME = env.str("SMS_SENDER_NAME", default="CongoPay")
# Seconds between the attempts to send a message the vendor could not take (5xx, timeouts);
# after the last one the message is `failed`.
SMS_RETRY_SCHEDULE = [
    int(s) for s in env.list("SMS_RETRY_SCHEDULE", default=["30", "120", "600", "1800", "7200"])
]
SMS_HTTP_TIMEOUT = env.float("SMS_HTTP_TIMEOUT", default=15)

# Orange's SMS API (developer.orange.com, "SMS Africa"): an application's client credentials,
# and the sender address of the country's offer ("tel:+243…").
ORANGE_SMS_BASE_URL = env.str("ORANGE_SMS_BASE_URL", default="https://api.orange.com").rstrip("/")
ORANGE_SMS_CLIENT_ID = env.str("ORANGE_SMS_CLIENT_ID", default="")
ORANGE_SMS_CLIENT_SECRET = env.str("ORANGE_SMS_CLIENT_SECRET", default="")
ORANGE_SMS_SENDER_ADDRESS = env.str("ORANGE_SMS_SENDER_ADDRESS", default="")
# The value of the Authorization header Orange sends with delivery receipts (set when the
# subscription to them is made); none accepted while unset.
ORANGE_SMS_CALLBACK_AUTHORIZATION = env.str("ORANGE_SMS_CALLBACK_AUTHORIZATION", default="")

# Twilio's Messages API: the account and its auth token (which also signs StatusCallback
# requests), and the sender (a number or an alphanumeric sender id).
TWILIO_BASE_URL = env.str("TWILIO_BASE_URL", default="https://api.twilio.com").rstrip("/")
TWILIO_ACCOUNT_SID = env.str("TWILIO_ACCOUNT_SID", default="")
TWILIO_AUTH_TOKEN = env.str("TWILIO_AUTH_TOKEN", default="")
TWILIO_FROM = env.str("TWILIO_FROM", default="")

# Africa's Talking's SMS API: the application's username and API key, and the sender id
# (shortcode or alphanumeric) registered for it ("" for the vendor's default).
AFRICASTALKING_BASE_URL = env.str(
    "AFRICASTALKING_BASE_URL", default="https://api.africastalking.com"
).rstrip("/")
AFRICASTALKING_USERNAME = env.str("AFRICASTALKING_USERNAME", default="")
AFRICASTALKING_API_KEY = env.str("AFRICASTALKING_API_KEY", default="")
AFRICASTALKING_SENDER_ID = env.str("AFRICASTALKING_SENDER_ID", default="")
# A secret word in the delivery-report address registered with Africa's Talking (it signs
# nothing, so the address is the secret); none accepted while unset.
AFRICASTALKING_CALLBACK_TOKEN = env.str("AFRICASTALKING_CALLBACK_TOKEN", default="")

_SMS_REQUIRED = {
    "console": (),
    "orange": ("ORANGE_SMS_CLIENT_ID", "ORANGE_SMS_CLIENT_SECRET", "ORANGE_SMS_SENDER_ADDRESS"),
    "twilio": ("TWILIO_ACCOUNT_SID", "TWILIO_AUTH_TOKEN", "TWILIO_FROM"),
    "africastalking": ("AFRICASTALKING_USERNAME", "AFRICASTALKING_API_KEY"),
}
if SMS_PROVIDER not in _SMS_REQUIRED:
    raise ImproperlyConfigured(
        f"SMS_PROVIDER={SMS_PROVIDER!r}: choose one of {', '.join(_SMS_REQUIRED)}"
    )
_unset = [name for name in _SMS_REQUIRED[SMS_PROVIDER] if not globals()[name]]
if _unset:
    raise ImproperlyConfigured(f"SMS_PROVIDER={SMS_PROVIDER} needs {', '.join(_unset)}")
