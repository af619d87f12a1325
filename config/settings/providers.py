"""The live providers: each operator's and the card provider's credentials and addresses, the
adapter of each rail, and which rails are offered live (PAYMENT_PROVIDERS). A rail whose adapter
cannot run safely with what is set stops the service at start."""

from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from config.settings.base import env
from config.settings.payments import SANDBOX_CARD_ENABLED

# A live network is offered only when its credentials are set; otherwise live charges on it answer
# 503 provider_unavailable (payouts also need their own settings, below). Test mode never uses
# these adapters. See docs/providers/.
PROVIDER_HTTP_TIMEOUT = env.float("PROVIDER_HTTP_TIMEOUT", default=15)
PROVIDER_HTTP_RETRIES = env.int("PROVIDER_HTTP_RETRIES", default=2)

AIRTEL_BASE_URL = env.str("AIRTEL_BASE_URL", default="https://openapi.airtel.africa").rstrip("/")
AIRTEL_CLIENT_ID = env.str("AIRTEL_CLIENT_ID", default="")
AIRTEL_CLIENT_SECRET = env.str("AIRTEL_CLIENT_SECRET", default="")
AIRTEL_CALLBACK_HASH_KEY = env.str("AIRTEL_CALLBACK_HASH_KEY", default="")
# Payouts (disbursements): the disbursement wallet's PIN and Airtel's RSA public key to encrypt it.
AIRTEL_DISBURSEMENT_PIN = env.str("AIRTEL_DISBURSEMENT_PIN", default="")
AIRTEL_DISBURSEMENT_PUBLIC_KEY = env.str("AIRTEL_DISBURSEMENT_PUBLIC_KEY", default="")

MPESA_BASE_URL = env.str("MPESA_BASE_URL", default="https://openapi.m-pesa.com").rstrip("/")
MPESA_PATH_PREFIX = env.str("MPESA_PATH_PREFIX", default="/openapi/ipg/v2/vodacomDRC").rstrip("/")
MPESA_API_KEY = env.str("MPESA_API_KEY", default="")
MPESA_PUBLIC_KEY = env.str("MPESA_PUBLIC_KEY", default="")
MPESA_SERVICE_PROVIDER_CODE = env.str("MPESA_SERVICE_PROVIDER_CODE", default="")
# Payouts (B2C): the shortcode they are paid from.
MPESA_B2C_SERVICE_PROVIDER_CODE = env.str("MPESA_B2C_SERVICE_PROVIDER_CODE", default="")
MPESA_ORIGIN = env.str("MPESA_ORIGIN", default="*")
MPESA_TIMEOUT = env.float("MPESA_TIMEOUT", default=120)
MPESA_SESSION_LIFETIME = env.float("MPESA_SESSION_LIFETIME", default=3600)
# A new session is refused for up to this many seconds after it is issued (M-Pesa's sample code
# waits 30 s); a call refused meanwhile waits until then and is made once more.
MPESA_SESSION_ACTIVATION = env.float("MPESA_SESSION_ACTIVATION", default=30)

ORANGE_BASE_URL = env.str("ORANGE_BASE_URL", default="https://api.orange.com").rstrip("/")
ORANGE_CLIENT_ID = env.str("ORANGE_CLIENT_ID", default="")
ORANGE_CLIENT_SECRET = env.str("ORANGE_CLIENT_SECRET", default="")
ORANGE_POS_ID = env.str("ORANGE_POS_ID", default="")
# What public material leaves open about the B2B RDC API, one setting each
# (docs/providers/orange.md, "To confirm with Orange"; payments/providers/orange.py, Assumptions).
ORANGE_API_PATH = env.str("ORANGE_API_PATH", default="/orange-money-b2b/v1/cd").rstrip("/")
ORANGE_CASHOUT_SERVICE = env.str("ORANGE_CASHOUT_SERVICE", default="cashout")
ORANGE_CASHIN_SERVICE = env.str("ORANGE_CASHIN_SERVICE", default="cashin")
# GET /services and /forms/{service} first, and send x-omr-forms-token, x-omr-forms-version and
# service headers on transactions, as independent integrations do.
ORANGE_FORMS = env.bool("ORANGE_FORMS", default=True)
# The Authorization header value set in the partner profile, sent by Orange on notifications.
ORANGE_CALLBACK_AUTHORIZATION = env.str("ORANGE_CALLBACK_AUTHORIZATION", default="")
# Fields of Orange's answers and notifications that carry its own id of a transaction.
ORANGE_REFERENCE_FIELDS = env.list("ORANGE_REFERENCE_FIELDS", default=["reference", "txnId"])
# The earlier callback form (a token of ours in the URL or body): accepted only while set.
ORANGE_NOTIF_TOKEN = env.str("ORANGE_NOTIF_TOKEN", default="")
# Payouts are cashins, which Orange enables per merchant account: off until it has.
ORANGE_PAYOUTS_ENABLED = env.bool("ORANGE_PAYOUTS_ENABLED", default=False)

CARD_PROVIDER_URL = env.str(
    "CARD_PROVIDER_URL", default="https://secureacceptance.cybersource.com/pay"
)
CARD_LIVE_ACCESS_KEY = env.str("CARD_LIVE_ACCESS_KEY", default="")
CARD_LIVE_PROFILE_ID = env.str("CARD_LIVE_PROFILE_ID", default="")
CARD_LIVE_SECRET_KEY = env.str("CARD_LIVE_SECRET_KEY", default="")
CARD_REST_BASE_URL = env.str("CARD_REST_BASE_URL", default="https://api.cybersource.com").rstrip(
    "/"
)
CARD_MERCHANT_ID = env.str("CARD_MERCHANT_ID", default="")
CARD_REST_KEY_ID = env.str("CARD_REST_KEY_ID", default="")
CARD_REST_SHARED_SECRET = env.str("CARD_REST_SHARED_SECRET", default="")

# --- Adapters -------------------------------------------------------------------------------
# The adapter of each rail (a network, or "card") in live mode: one line per provider. A rail is
# offered live only when every setting its adapter requires (its `required_settings`) is set.
# Test mode uses the sandbox adapters on every rail. See payments/providers/registry.py.
LIVE_PAYMENT_ADAPTERS = {
    "AIRTEL_MONEY": "payments.providers.airtel.AirtelMoney",
    "VODACOM_MPESA": "payments.providers.mpesa.VodacomMpesa",
    "ORANGE_MONEY": "payments.providers.orange.OrangeMoney",
    "card": "payments.providers.cybersource.CyberSourceCard",
}
_SANDBOX_MM = "sandbox.providers.SandboxMobileMoney"


def _configured(adapter_path: str) -> bool:
    return all(globals()[name] for name in import_string(adapter_path).required_settings)


PAYMENT_PROVIDERS = {
    "test": {
        **{rail: _SANDBOX_MM for rail in LIVE_PAYMENT_ADAPTERS if rail != "card"},
        **({"card": "sandbox.providers.SandboxCard"} if SANDBOX_CARD_ENABLED else {}),
    },
    "live": {rail: path for rail, path in LIVE_PAYMENT_ADAPTERS.items() if _configured(path)},
}
# A rail offered live must also have the settings its adapter cannot run safely without (its
# `start_settings`, e.g. Airtel's callback key): otherwise the service does not start at all.
for _rail, _path in PAYMENT_PROVIDERS["live"].items():
    _adapter = import_string(_path)
    _unset = [name for name in getattr(_adapter, "start_settings", ()) if not globals()[name]]
    if _unset:
        raise ImproperlyConfigured(
            f"{_rail} is configured for live mode ({', '.join(_adapter.required_settings)}) but "
            f"{', '.join(_unset)} is not set: without it anyone could post {_adapter.label} "
            "callbacks. Set it (docs/providers/), or unset the credentials to leave "
            f"{_rail} off."
        )
