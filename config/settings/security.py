"""What protects the service on the web: HTTPS, cookies and headers, the node's draining, the
largest request body, the throttles per client address and per phone, and the sign-in lockouts
(django-axes)."""

import re

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import DEBUG, env, public_url

X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
_https = public_url.scheme == "https"
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=_https and not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=_https and not DEBUG)
SESSION_COOKIE_HTTPONLY = True
# The language switcher's cookie (Django's set_language), with the session's flags: no script
# reads it.
LANGUAGE_COOKIE_SECURE = SESSION_COOKIE_SECURE
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=False)
SECURE_HSTS_SECONDS = env.int(
    "SECURE_HSTS_SECONDS", default=31536000 if _https and not DEBUG else 0
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
if env.bool("TRUST_X_FORWARDED_PROTO", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
# While this file exists the node is draining: /readyz answers 503 so that the balancer stops
# sending it requests (the deploy's stop step creates it, waits, then stops the server; its start
# step removes it). Empty: never draining.
DRAIN_FILE = env.str("DRAIN_FILE", default="")

# Largest request body in bytes (413 request_too_large above it), on every path; Django's own
# reading of form and raw bodies stops at the same size.
MAX_REQUEST_BODY = env.int("MAX_REQUEST_BODY", default=1_048_576)
DATA_UPLOAD_MAX_MEMORY_SIZE = MAX_REQUEST_BODY
# The one page that takes documents (the application for live mode, docs/guides/going-live.md):
# three of at most 5 MB each and the form around them. Django counts only the form's fields
# against DATA_UPLOAD_MAX_MEMORY_SIZE, and keeps a file over 2.5 MB in a temporary file.
ACTIVATION_DOCUMENT_MAX_BYTES = 5 * 1024 * 1024
UPLOAD_PATHS = ("/dashboard/settings/activation/",)
MAX_UPLOAD_BODY = 3 * ACTIVATION_DOCUMENT_MAX_BYTES + 1_048_576

# --- Throttles and sign-in lockouts ---------------------------------------------------------
# Throttles per client address ("N/s", "N/m", "N/h", "N/d"; core/throttles.py). Failed API
# authentications only ever refuse requests without a valid key (core/api/authentication.py).
THROTTLE_AUTH_FAILURES = env.str("THROTTLE_AUTH_FAILURES", default="20/m")
THROTTLE_CHECKOUT_ATTEMPTS_SESSION = env.str("THROTTLE_CHECKOUT_ATTEMPTS_SESSION", default="10/h")
THROTTLE_CHECKOUT_ATTEMPTS_ADDRESS = env.str("THROTTLE_CHECKOUT_ATTEMPTS_ADDRESS", default="30/h")
THROTTLE_CALLBACKS = env.str("THROTTLE_CALLBACKS", default="600/m")
# Checkout sessions opened from payment links' pages (/pay/{slug}), per client address.
THROTTLE_PAYMENT_LINK_SESSIONS = env.str("THROTTLE_PAYMENT_LINK_SESSIONS", default="30/h")
# Signed card replies posted back through customers' browsers (/card/receipt), per client address.
THROTTLE_CARD_RECEIPTS = env.str("THROTTLE_CARD_RECEIPTS", default="60/m")
# Live payment prompts the hosted pages may attempt to one phone number, whatever the merchant,
# link or client address: every rate of the list holds (checkout/services.py, counted in the
# database). Test mode, whose prompts reach no phone, and the API's charges are not counted.
PHONE_PROMPT_LIMITS = env.str("PHONE_PROMPT_LIMITS", default="5/10m,20/d")
if not all(
    re.fullmatch(r"\s*[0-9]+\s*/\s*[0-9]*\s*[smhd][a-z]*\s*", part, re.ASCII)
    and not re.search(r"/\s*0+\s*[smhd]", part)
    for part in PHONE_PROMPT_LIMITS.split(",")
):
    raise ImproperlyConfigured(
        f"PHONE_PROMPT_LIMITS: cannot read {PHONE_PROMPT_LIMITS!r}. Expected rates separated by "
        'commas, each N/PERIOD with PERIOD s, m, h or d, optionally a number of them: "5/10m,20/d".'
    )
# Proxies in front of the web server that append to X-Forwarded-For (0: use REMOTE_ADDR).
THROTTLE_TRUSTED_PROXIES = env.int("THROTTLE_TRUSTED_PROXIES", default=0)

# Failed sign-ins at /accounts/login/ (django-axes, in the database; dashboard/signin.py):
# THROTTLE_ADMIN_LOGIN "N/period" failures for one member's account from one client address lock
# that pair out for the period; THROTTLE_STAFF_SIGN_IN failures for one staff account, from every
# address together, lock that account out. A password reset by e-mail lifts either lock at once.
# Sign-ins of one account are taken one at a time, so no more than N passwords are ever checked.
# The client address is axes' (django-ipware), told the same proxies as above: the
# THROTTLE_TRUSTED_PROXIES-th address from the right of X-Forwarded-For, else REMOTE_ADDR.
THROTTLE_ADMIN_LOGIN = env.str("THROTTLE_ADMIN_LOGIN", default="10/h")
THROTTLE_STAFF_SIGN_IN = env.str("THROTTLE_STAFF_SIGN_IN", default="20/h")
for _name in ("THROTTLE_ADMIN_LOGIN", "THROTTLE_STAFF_SIGN_IN"):
    _count, _, _period = globals()[_name].partition("/")
    if not _count.strip().isdigit() or _period.strip()[:1] not in ("s", "m", "h", "d"):
        raise ImproperlyConfigured(f"{_name} must read N/s, N/m, N/h or N/d.")
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    # The sign-in by e-mail address (allauth), staff's too; axes counts its failures.
    "allauth.account.auth_backends.AuthenticationBackend",
]
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
# Per account and client address for members, per account for staff; limit and period to match.
AXES_LOCKOUT_PARAMETERS = "dashboard.signin.lockout_parameters"
AXES_FAILURE_LIMIT = "dashboard.signin.failure_limit"
AXES_COOLOFF_TIME = "dashboard.signin.cool_off"
AXES_LOCKOUT_CALLABLE = "dashboard.signin.locked_out"
# allauth's sign-in sends the e-mail address as `login`.
AXES_USERNAME_CALLABLE = "dashboard.signin.axes_username"
AXES_ENABLE_ADMIN = False
# ipware's proxy count leaves out the proxy that connects to us (REMOTE_ADDR); a chain longer
# than the proxies (addresses the client sent itself) is read from the right, not refused.
AXES_IPWARE_PROXY_ORDER = "left-most"
AXES_IPWARE_PROXY_COUNT = THROTTLE_TRUSTED_PROXIES - 1 if THROTTLE_TRUSTED_PROXIES else None
IPWARE_STRICT = False
AXES_IPWARE_META_PRECEDENCE_ORDER = (
    ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR") if THROTTLE_TRUSTED_PROXIES else ("REMOTE_ADDR",)
)
