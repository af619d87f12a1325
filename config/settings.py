"""Settings, all from the environment (django-environ).

The defaults are the embedded set-up: SQLite in var/, Celery on a SQLite broker, sandbox providers.
Every variable read here is listed in docs/operations/configuration.md.
"""

import re
from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(environ.Env().str("VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

env = environ.Env()

# Off unless asked for: `make run` turns it on for the embedded set-up on one machine.
DEBUG = env.bool("DEBUG", default=False)

_DEV_SECRET_KEY = "dev-only-insecure-secret-key-change-me-in-production-0123456789"
SECRET_KEY = env.str("SECRET_KEY", default=_DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")

PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="http://127.0.0.1:8000").rstrip("/")
_public = urlsplit(PUBLIC_BASE_URL)

ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS",
    default=(["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else [])
    + ([_public.hostname] if _public.hostname else []),
)
CSRF_TRUSTED_ORIGINS = env.list(
    "CSRF_TRUSTED_ORIGINS", default=[f"{_public.scheme}://{_public.netloc}"]
)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "config.staticfiles.StaticFiles",  # django.contrib.staticfiles, collecting no source maps
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "payments",
    "checkout",
    "links",
    "webhooks",
    "sandbox",
    "batches",
    "dashboard",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "django_htmx",
    "django_filters",
]

MIDDLEWARE = [
    # Outermost: its headers reach every answer, the refusals of the next one included.
    "core.headers.PrivatePagesMiddleware",
    "core.api.middleware.RequestIdMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "core.api.middleware.ApiLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "dashboard.middleware.HtmxRedirectMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    # Staff reach no admin page before their second factor is set up (dashboard/staff.py).
    "dashboard.staff.StaffTwoFactorMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "dashboard.context.dashboard",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}"),
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The web server and the worker share the file: wait for the lock instead of failing, and
    # take the write lock at BEGIN so that read-then-write transactions do not deadlock.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"timeout": 30, "transaction_mode": "IMMEDIATE", "init_command": "PRAGMA journal_mode=WAL;"}
    )
    DATABASES["default"].setdefault("TEST", {})["NAME"] = str(VAR_DIR / "test-db.sqlite3")
    # The ledger's balance index carries the amount on PostgreSQL (INCLUDE); SQLite builds it
    # without, which is all this warning says.
    SILENCED_SYSTEM_CHECKS = ["models.W040"]
else:
    # Both options below must stay off behind PgBouncer in transaction mode (one transaction's
    # prepared statements are not there for the next; a pool in front of a pool holds nothing).
    db_options = DATABASES["default"].setdefault("OPTIONS", {})
    if env.bool("DB_SERVER_SIDE_BINDING", default=False):
        # Django binds the parameters server side, and psycopg prepares a statement once it has
        # run DB_PREPARE_THRESHOLD times on a connection (its plan then reused). `migrate` runs
        # with it off: a server-bound statement holds one command, and some migrations send
        # several at once (0007's trigger).
        db_options["server_side_binding"] = True
        db_options["prepare_threshold"] = env.int("DB_PREPARE_THRESHOLD", default=5)
    if env.bool("DB_POOL", default=False):
        # psycopg's pool, per process: a request borrows a connection and gives it back at its
        # end (persistent connections are the pool's, so CONN_MAX_AGE must be 0).
        db_options["pool"] = {
            "min_size": env.int("DB_POOL_MIN_SIZE", default=2),
            "max_size": env.int("DB_POOL_MAX_SIZE", default=8),
            "timeout": env.float("DB_POOL_TIMEOUT", default=10.0),
        }
        DATABASES["default"]["CONN_MAX_AGE"] = 0
    else:
        DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("DB_CONN_MAX_AGE", default=60))
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

    # --- Database: pooler, timeouts, keepalives (deployment on several machines) -------------
    # DB_POOLER=pgbouncer: the service reaches PostgreSQL through PgBouncer in transaction mode,
    # where consecutive transactions of one connection may run on different server sessions. A
    # server-side cursor, a prepared statement or a session setting made in one transaction is
    # then not there in the next: Django's server-side cursors (QuerySet.iterator) are off, no
    # statement is prepared, and our own pool (DB_POOL) is refused, PgBouncer being the pool.
    DB_POOLER = env.str("DB_POOLER", default="")
    if DB_POOLER not in ("", "pgbouncer"):
        raise ImproperlyConfigured("DB_POOLER must be empty (direct) or 'pgbouncer'.")
    if DB_POOLER == "pgbouncer":
        if env.bool("DB_POOL", default=False) or env.bool("DB_SERVER_SIDE_BINDING", default=False):
            raise ImproperlyConfigured(
                "DB_POOLER=pgbouncer (transaction mode) cannot be used with DB_POOL or "
                "DB_SERVER_SIDE_BINDING: unset them (PgBouncer is the pool)."
            )
        DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
        db_options["prepare_threshold"] = None  # psycopg prepares nothing
    # Server-side limits, in milliseconds (0: none). A statement running longer than
    # DB_STATEMENT_TIMEOUT is cancelled; a session idle inside a transaction for longer than
    # DB_IDLE_IN_TRANSACTION_TIMEOUT is ended by the server and its locks freed (a process frozen
    # or cut off mid-transaction holds nothing for long); a lock waited for longer than
    # DB_LOCK_TIMEOUT fails the statement. They are sent as the connection's startup `options`;
    # PgBouncer refuses or drops that parameter, so behind it they are set on the role instead
    # (ALTER ROLE … SET, docs/operations/production.md) and not sent.
    DB_STATEMENT_TIMEOUT = env.int("DB_STATEMENT_TIMEOUT", default=60_000)
    DB_IDLE_IN_TRANSACTION_TIMEOUT = env.int("DB_IDLE_IN_TRANSACTION_TIMEOUT", default=60_000)
    DB_LOCK_TIMEOUT = env.int("DB_LOCK_TIMEOUT", default=10_000)
    if not DB_POOLER:
        db_options["options"] = " ".join(
            [
                *filter(None, [db_options.get("options")]),  # any of DATABASE_URL's own first
                f"-c statement_timeout={DB_STATEMENT_TIMEOUT}",
                f"-c idle_in_transaction_session_timeout={DB_IDLE_IN_TRANSACTION_TIMEOUT}",
                f"-c lock_timeout={DB_LOCK_TIMEOUT}",
            ]
        )
    # TCP keepalives (libpq): a connection whose other end vanished (a machine gone, a NAT that
    # forgot it) is noticed within about idle + interval × count seconds, on both sides.
    db_options.update(
        {
            "keepalives": 1,
            "keepalives_idle": env.int("DB_KEEPALIVES_IDLE", default=60),
            "keepalives_interval": env.int("DB_KEEPALIVES_INTERVAL", default=10),
            "keepalives_count": env.int("DB_KEEPALIVES_COUNT", default=5),
        }
    )

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache and broker -----------------------------------------------------------------------
REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # An unreachable Redis costs a request seconds, not the OS's connect timeout.
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# --- One machine on purpose, or many ---------------------------------------------------------
# SQLite and the embedded broker (a file in VAR_DIR) serve one machine only: with DEBUG off the
# service refuses them unless EMBEDDED=true says that this is a one-machine set-up on purpose.
EMBEDDED = env.bool("EMBEDDED", default=False)
if not DEBUG and not EMBEDDED:
    _one_machine = [
        name
        for name, unset in (
            ("DATABASE_URL (PostgreSQL)", DATABASES["default"]["ENGINE"].endswith("sqlite3")),
            ("REDIS_URL", not REDIS_URL),
        )
        if unset
    ]
    if _one_machine:
        raise ImproperlyConfigured(
            f"Set {' and '.join(_one_machine)}: with DEBUG off the service runs on PostgreSQL "
            "and Redis shared by every machine. For a one-machine set-up on SQLite and the "
            "embedded broker, on purpose, set EMBEDDED=true."
        )

CELERY_BROKER_URL = REDIS_URL or f"sqla+sqlite:///{VAR_DIR / 'broker.sqlite3'}"
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Beat keeps its state (when each job last ran) in memory, not in a file of the machine it runs on
# (Celery's plain Scheduler instead of the default shelve file): the schedule itself is the code of
# config/celery.py, and every job is safe to run twice, so a beat restarted anywhere, or a second
# beat, only makes each job run once at its start.
CELERY_BEAT_SCHEDULER = "celery.beat:Scheduler"
# The periodic sweeps run on their own queue (config/celery.py), so a backlog on the default
# queue never delays them: a worker must consume it (runservice's does).
PERIODIC_QUEUE = env.str("PERIODIC_QUEUE", default="periodic")
CELERY_TIMEZONE = "UTC"
# Celery would close the database connection around every task; config/celery.py keeps it as
# Django does around a request (DB_CONN_MAX_AGE, health checks). Celery still recycles it now
# and then.
CELERY_DB_REUSE_MAX = 1000
# Live M-Pesa payment calls block while the customer enters the PIN (up to MPESA_TIMEOUT): they
# run on this queue, so a few slow customers never hold the workers that poll and send webhooks.
PAYMENTS_LONG_QUEUE = env.str("PAYMENTS_LONG_QUEUE", default="payments-long")
# Webhook deliveries run on their own queue and workers: a merchant's slow or silent receiver
# never holds a worker that sends prompts, checks statuses or sends payouts.
WEBHOOKS_QUEUE = env.str("WEBHOOKS_QUEUE", default="webhooks")
# Payout batches (batches/): rows of one batch paid per second by its worker task, and the
# seconds without a row paid after which the sweep takes a processing batch up again (its worker
# was killed, or the broker lost the task).
BATCH_PAYOUT_RATE = env.int("BATCH_PAYOUT_RATE", default=10)
BATCH_RESUME_AFTER = env.int("BATCH_RESUME_AFTER", default=60)
if REDIS_URL:
    # Longer than the longest countdown we use, so a delayed task is not redelivered early.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 43200, "socket_connect_timeout": 3}
# Embedded broker: the options are passed to SQLAlchemy's create_engine; none are needed.

# --- Mail -----------------------------------------------------------------------------------
# EMAIL_URL in django-environ's syntax: smtp://user:password@host:587 (smtp+tls://, smtp+ssl://),
# consolemail:// (the default: mails printed to the log, as `make run` shows them).
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
DEFAULT_FROM_EMAIL = env.str(
    "DEFAULT_FROM_EMAIL", default=f"no-reply@{_public.hostname or 'localhost'}"
)
SERVER_EMAIL = DEFAULT_FROM_EMAIL
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)

# --- Auth, i18n, static ---------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "fr"
LANGUAGES = [("fr", "Français"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Built once per release (`manage.py collectstatic`) into the release's own tree, read by
# whitenoise and nginx from there: a web node keeps nothing of its own for them.
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
# Files served at the site's root (/favicon.ico), so browsers asking for them never get a 404.
WHITENOISE_ROOT = BASE_DIR / "static" / "root"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        # Hashed names (long-cached) need `collectstatic` first, as production does.
        "BACKEND": "config.staticfiles.ManifestStorage"  # whitenoise's, without source maps
        if env.bool("STATIC_MANIFEST", default=not DEBUG)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- Security (production when DEBUG is off) ------------------------------------------------
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
_https = _public.scheme == "https"
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

# --- REST framework -------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["core.api.authentication.ApiKeyAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["core.api.authentication.HasApiKey"],
    "DEFAULT_PARSER_CLASSES": ["core.api.parsers.JsonObjectParser"],
    "DEFAULT_RENDERER_CLASSES": ["core.api.renderers.JsonRenderer"],
    "DEFAULT_THROTTLE_CLASSES": ["core.api.throttling.ApiKeyRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {"api_key": env.str("API_RATE_LIMIT", default="100/s")},
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "core.api.renderers.JsonOnlyNegotiation",
    "EXCEPTION_HANDLER": "core.api.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "core.api.openapi.ApiSchema",
    "UNAUTHENTICATED_USER": None,
}
# The model that stores the answers to POSTs made with an Idempotency-Key (core/api/idempotency.py).
IDEMPOTENCY_RECORD_MODEL = "payments.IdempotencyRecord"
# Who an API key is (core/api/authentication.py): the key's merchant and mode, from its hash.
API_KEY_RESOLVER = "payments.api.principals.resolve"

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
# Seconds a web process trusts an API key it has read before reading it again: a revoked key is
# refused by every process within this, whatever Redis and the broker do
# (payments/api/principals.py).
API_KEY_CACHE_SECONDS = env.float("API_KEY_CACHE_SECONDS", default=3.0)
if not 0 <= API_KEY_CACHE_SECONDS <= 4:
    raise ImproperlyConfigured("API_KEY_CACHE_SECONDS must be between 0 and 4.")

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
INSTALLED_APPS += ["axes"]
MIDDLEWARE += ["axes.middleware.AxesMiddleware"]
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

# --- Merchant dashboard: accounts (django-allauth), two-factor, sessions ---------------------
# The dashboard's sign-in, sign-up and password reset are allauth's, at its default paths and
# field names (/accounts/…, contract §15); failed sign-ins are counted by axes above (per
# e-mail address and client address) and by allauth's own rate limits.
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/dashboard/"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_FORMS = {"signup": "dashboard.forms.SignupForm"}
ACCOUNT_ADAPTER = "dashboard.adapter.AccountAdapter"
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
# The link in the verification mail signs the new member in (on the browser that signed up).
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = True
# The link of a password reset mail signs its reader in (then asks for the code, with TOTP): a
# member locked out by others' failures is in at once (docs/operations/security.md).
ACCOUNT_LOGIN_ON_PASSWORD_RESET = True
ACCOUNT_REAUTHENTICATION_TIMEOUT = 600  # §15: live sensitive actions, within 10 minutes
ACCOUNT_EMAIL_SUBJECT_PREFIX = ""
# allauth's limits, counted in the cache per client address (dashboard.adapter's, behind
# THROTTLE_TRUSTED_PROXIES) or per e-mail address; its defaults for the others. Sign-ups (every
# form sent) per address, so that one address cannot mail confirmations to any recipients; a
# confirmation mail to one address once per 3 minutes (docs/operations/security.md).
ACCOUNT_RATE_LIMITS = {"signup": "10/h/ip", "confirm_email": "1/3m/key"}
ACCOUNT_DEFAULT_HTTP_PROTOCOL = _public.scheme or "http"
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
# The two-factor step writes the codes allauth's rate limit refuses in the audit log.
MFA_FORMS = {"authenticate": "dashboard.mfa.TwoFactorForm"}
MFA_TOTP_ISSUER = env.str("MFA_TOTP_ISSUER", default="Payments")
# A dashboard session ends after this many seconds, and when its password changes.
SESSION_COOKIE_AGE = env.int("DASHBOARD_SESSION_AGE", default=12 * 3600)
SESSION_COOKIE_SAMESITE = "Lax"
# Days an invitation to a merchant's team stays valid.
DASHBOARD_INVITATION_DAYS = env.int("DASHBOARD_INVITATION_DAYS", default=7)

SPECTACULAR_SETTINGS = {
    "TITLE": "Payments API",
    "DESCRIPTION": (
        "Collect mobile money (Airtel Money, Vodacom M-Pesa, Orange Money) and card payments in "
        "CDF and USD, refund them, pay out, and follow everything by signed webhooks.\n\n"
        "Authenticate with `Authorization: Bearer sk_test_…` (test mode) or `sk_live_…` (live "
        "mode). Send JSON bodies (`Content-Type: application/json`); amounts are integers in the "
        "smallest currency unit. Every POST accepts an `Idempotency-Key` header: retry with the "
        "same key and nothing is done twice.\n\n"
        'Every error has the same shape, `{"error": {type, code, message, param, '
        "request_id}}`: branch on `code`, show `message` (English, or French with "
        "`Accept-Language: fr`). A method a path does not have is answered 405 "
        "method_not_allowed. Every response carries a `Request-Id` header."
    ),
    "VERSION": "1",
    "TAGS": [
        {"name": "Charges", "description": "Payments taken by mobile money or card."},
        {"name": "Refunds", "description": "Money given back on a succeeded charge."},
        {"name": "Payouts", "description": "Money sent from your balance to a mobile wallet."},
        {"name": "Balance", "description": "What is available, and every movement of it."},
        {"name": "Networks", "description": "The mobile money networks: status and limits."},
        {"name": "Checkout sessions", "description": "Payment pages hosted for you."},
        {
            "name": "Payment links",
            "description": "Links to share (a message, a QR code) that open a payment page.",
        },
        {"name": "Webhooks", "description": "Where events go, and what was sent."},
    ],
    "ENUM_NAME_OVERRIDES": {
        "Currency": "payments.models.Currency.values",
        "MobileMoneyNetwork": "payments.models.Network.values",
        "PaymentMethod": "payments.models.PaymentMethod.values",
        "ChargeStatus": "payments.models.ChargeStatus.values",
        # Refunds, payouts and deliveries share these three.
        "ProcessingStatus": "payments.models.RefundStatus.values",
        "RefundReason": "payments.models.RefundReason.values",
        "RefundRequestReason": "payments.models.MERCHANT_REFUND_REASONS",
        "BalanceTransactionType": "payments.models.LedgerType.values",
        "CheckoutSessionStatus": "checkout.models.SessionStatus.values",
        "EventType": "webhooks.models.EventType.values",
        "ErrorType": "core.api.openapi.ERROR_TYPES",
        # The `object` of each kind of object: one value each, so that a client (and a schema
        # validator) tells a charge from a payout at once.
        "ChargeObject": ["charge"],
        "RefundObject": ["refund"],
        "PayoutObject": ["payout"],
        "BalanceObject": ["balance"],
        "BalanceTransactionObject": ["balance_transaction"],
        "CheckoutSessionObject": ["checkout.session"],
        "PaymentLinkObject": ["payment_link"],
        "EventObject": ["event"],
        "DeliveryObject": ["delivery"],
        "WebhookEndpointObject": ["webhook_endpoint"],
        "ListObject": ["list"],
        "NetworkObject": ["network"],
        "NetworkPredictionObject": ["network_prediction"],
        "NetworkStatus": ["operational", "degraded", "closed"],
        "NextActionType": ["provider_redirect"],
    },
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    "ENUM_ADD_EXPLICIT_BLANK_NULL_CHOICE": False,
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": r"/v1",
}

# --- Payments -------------------------------------------------------------------------------
SANDBOX_MOBILE_MONEY_DELAY = env.float("SANDBOX_MOBILE_MONEY_DELAY", default=3)
MOBILE_MONEY_PROMPT_TIMEOUT = env.int("MOBILE_MONEY_PROMPT_TIMEOUT", default=300)
# A balance that adds up this many ledger rows one by one asks a worker for a checkpoint of them
# (services.ledger): a balance then costs the same at ten million rows as at ten thousand.
LEDGER_CHECKPOINT_ROWS = env.int("LEDGER_CHECKPOINT_ROWS", default=10_000)
CARD_PAYMENT_TIMEOUT = env.int("CARD_PAYMENT_TIMEOUT", default=3600)
# Seconds a mobile money charge failed by our clock is still asked about (late payments),
# and the growing waits between those checks (the last one repeats until the window ends).
RECONCILIATION_WINDOW = env.int("RECONCILIATION_WINDOW", default=172800)
RECONCILIATION_BACKOFF = [
    int(s)
    for s in env.list("RECONCILIATION_BACKOFF", default=["60", "300", "900", "3600", "10800"])
]
WEBHOOK_RETRY_SCHEDULE = [
    int(s)
    for s in env.list(
        "WEBHOOK_RETRY_SCHEDULE", default=["5", "300", "1800", "7200", "18000", "36000", "36000"]
    )
]
WEBHOOK_TIMEOUT = env.float("WEBHOOK_TIMEOUT", default=10)
# Seconds between the attempts to mail a customer's receipt when the mail server refuses it or
# cannot be reached (then it is given up and stays unsent, with its error, in the admin).
RECEIPT_RETRY_SCHEDULE = [
    int(s) for s in env.list("RECEIPT_RETRY_SCHEDULE", default=["30", "120", "600", "1800", "7200"])
]
# Attempts of one merchant's deliveries in one mode made at once, across every webhooks worker: a
# receiver that answers slowly holds no more threads than this, whatever its backlog.
WEBHOOK_ATTEMPTS_AT_ONCE = env.int("WEBHOOK_ATTEMPTS_AT_ONCE", default=4)
# Loopback and private webhook destinations (local development only); metadata, link-local,
# multicast and reserved addresses are refused whatever this says.
WEBHOOK_ALLOW_PRIVATE_NETWORKS = env.bool("WEBHOOK_ALLOW_PRIVATE_NETWORKS", default=DEBUG)

SANDBOX_CARD_ACCESS_KEY = env.str(
    "SANDBOX_CARD_ACCESS_KEY", default="sandbox0access0key0000000000000001"
)
SANDBOX_CARD_PROFILE_ID = env.str("SANDBOX_CARD_PROFILE_ID", default="SANDBOX-PROFILE-1")
_SANDBOX_CARD_DEFAULT_SECRET = "sandbox-card-secret-key-for-local-development-only"
SANDBOX_CARD_SECRET_KEY = env.str("SANDBOX_CARD_SECRET_KEY", default=_SANDBOX_CARD_DEFAULT_SECRET)
# Whether test mode offers card payments at all (the sandbox card rail).
SANDBOX_CARD_ENABLED = env.bool("SANDBOX_CARD_ENABLED", default=True)
if not DEBUG and SANDBOX_CARD_ENABLED and SANDBOX_CARD_SECRET_KEY == _SANDBOX_CARD_DEFAULT_SECRET:
    # The default is public: with it anyone could sign test card replies on a real deployment.
    raise ImproperlyConfigured(
        "SANDBOX_CARD_SECRET_KEY is the public development default. With DEBUG off, set "
        "SANDBOX_CARD_SECRET_KEY to a secret of your own (or SANDBOX_CARD_ENABLED=false)."
    )

CARD_PROVIDER_URL = env.str(
    "CARD_PROVIDER_URL", default="https://secureacceptance.cybersource.com/pay"
)

# --- Logging --------------------------------------------------------------------------------
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "filters": {"security_one_line": {"()": "config.logfilters.SecurityOneLine"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["security_one_line"],
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {"django.request": {"level": "ERROR"}},
}

# --- Live providers -------------------------------------------------------------------------
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

# --- Networks: limits and availability -------------------------------------------------------
# The amounts each network takes, per currency, in WHOLE units (operators take whole francs and
# dollars): "CDF=100-5000000,USD=1-2500" applies to every network, "AIRTEL_MONEY:USD=1-1500"
# to one. NETWORK_LIMITS is read on top of the defaults, so it only needs what differs.
# Charges and payouts outside them answer 400 amount_invalid; GET /v1/networks shows them.
MOBILE_MONEY_NETWORKS = [rail for rail in LIVE_PAYMENT_ADAPTERS if rail != "card"]
NETWORK_LIMITS_DEFAULT = "CDF=100-5000000,USD=1-2500"
_LIMIT_CURRENCIES = ("CDF", "USD")
_LIMIT_MAX_UNITS = 999_999_999_999 // 100  # the API's largest amount, in whole units


def parse_network_limits(text: str, base: dict | None = None) -> dict[str, dict[str, tuple]]:
    """`"CDF=100-5000000,AIRTEL_MONEY:USD=1-1500"` → {network: {currency: (min, max)}} in minor
    units, on top of `base`. ImproperlyConfigured for anything it cannot read."""
    limits = {network: dict((base or {}).get(network, {})) for network in MOBILE_MONEY_NETWORKS}
    for entry in filter(None, (part.strip() for part in text.split(","))):
        scope, _, bounds = entry.partition("=")
        network, _, currency = scope.strip().rpartition(":")
        low, _, high = bounds.strip().partition("-")
        if (
            (network and network not in MOBILE_MONEY_NETWORKS)
            or currency not in _LIMIT_CURRENCIES
            or not (low.isdigit() and high.isdigit())
            or not 1 <= int(low) <= int(high) <= _LIMIT_MAX_UNITS
        ):
            raise ImproperlyConfigured(
                f"NETWORK_LIMITS: cannot read {entry!r}. Expected CURRENCY=MIN-MAX or "
                f"NETWORK:CURRENCY=MIN-MAX in whole units, 1 <= MIN <= MAX <= {_LIMIT_MAX_UNITS}, "
                f"currency one of {', '.join(_LIMIT_CURRENCIES)}, network one of "
                f"{', '.join(MOBILE_MONEY_NETWORKS)}."
            )
        for name in [network] if network else MOBILE_MONEY_NETWORKS:
            limits[name][currency] = (int(low) * 100, int(high) * 100)
    return limits


NETWORK_LIMITS = parse_network_limits(
    env.str("NETWORK_LIMITS", default=""), parse_network_limits(NETWORK_LIMITS_DEFAULT)
)
# The smallest and largest amount a customer may type for a card payment on a custom-amount
# payment link, in USD minor units ("100-1000000": USD 1.00 to 10,000.00); links/forms.py.
_card_limits = env.str("CARD_CUSTOM_AMOUNT_LIMITS", default="100-1000000")
_card_match = re.fullmatch(r"\s*([0-9]+)\s*-\s*([0-9]+)\s*", _card_limits, re.ASCII)
if _card_match is None or not 1 <= int(_card_match[1]) <= int(_card_match[2]) <= 999_999_999_999:
    raise ImproperlyConfigured(
        f"CARD_CUSTOM_AMOUNT_LIMITS: cannot read {_card_limits!r}. Expected MIN-MAX in USD minor "
        "units, 1 ≤ MIN ≤ MAX ≤ 999999999999 (e.g. 100-1000000 for USD 1.00 to 10,000.00)."
    )
CARD_CUSTOM_AMOUNT_LIMITS = (int(_card_match[1]), int(_card_match[2]))
# A network is `degraded` while, over the last NETWORK_DEGRADED_WINDOW seconds, at least
# NETWORK_DEGRADED_MIN_ATTEMPTS of its mobile money charges were settled and the share of them
# that failed with an operator error or a timeout reached NETWORK_DEGRADED_THRESHOLD.
NETWORK_DEGRADED_WINDOW = env.int("NETWORK_DEGRADED_WINDOW", default=900)
NETWORK_DEGRADED_THRESHOLD = env.float("NETWORK_DEGRADED_THRESHOLD", default=0.5)
NETWORK_DEGRADED_MIN_ATTEMPTS = env.int("NETWORK_DEGRADED_MIN_ATTEMPTS", default=10)
if not 0 < NETWORK_DEGRADED_THRESHOLD <= 1 or NETWORK_DEGRADED_WINDOW < 1:
    raise ImproperlyConfigured(
        "NETWORK_DEGRADED_THRESHOLD must be a share above 0 and at most 1 (e.g. 0.5), and "
        "NETWORK_DEGRADED_WINDOW a number of seconds of at least 1."
    )
