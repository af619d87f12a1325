"""What Django runs: the installed apps, the middleware, the URLs and templates, the password
rules, the languages, the static files and the files people send."""

from pathlib import Path

from config.settings.base import BASE_DIR, DEBUG, VAR_DIR, env

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
    "core",
    "payments",
    "checkout",
    "links",
    "webhooks",
    "sandbox",
    "batches",
    "messaging",
    "dashboard",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "django_htmx",
    "django_filters",
    # Sign-in lockouts (the accounts part).
    "axes",
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
    # Counts failed sign-ins and refuses a locked account (the accounts part).
    "axes.middleware.AxesMiddleware",
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
                "sandbox.context.sandbox_numbers",
            ],
        },
    },
]

# --- Passwords, languages, static files ----------------------------------------------------
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
# English dates as read beside French ones: day first, 24-hour clock (config/formats/en).
FORMAT_MODULE_PATH = ["config.formats"]

STATIC_URL = "static/"
# Built once per release (`manage.py collectstatic`) into the release's own tree, read by
# whitenoise and nginx from there: a web node keeps nothing of its own for them.
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)
STATICFILES_DIRS = [BASE_DIR / "static"]
# Files served at the site's root (/favicon.ico), so browsers asking for them never get a 404.
WHITENOISE_ROOT = BASE_DIR / "static" / "root"

# The files people send (the documents of applications for live mode): kept by the default
# storage, the file system under MEDIA_ROOT or an S3-compatible bucket (django-storages), and
# never served at an address: there is no MEDIA_URL, and staff read them through a view that
# streams them (dashboard/documents.py).
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(VAR_DIR / "media")))
FILE_UPLOAD_PERMISSIONS = 0o600
FILE_UPLOAD_DIRECTORY_PERMISSIONS = 0o700
MEDIA_S3_BUCKET = env.str("MEDIA_S3_BUCKET", default="")
if MEDIA_S3_BUCKET:
    DEFAULT_STORAGE = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": MEDIA_S3_BUCKET,
            # Empty: boto3's own (AWS's endpoint, its region and credentials chain).
            "endpoint_url": env.str("MEDIA_S3_ENDPOINT_URL", default="") or None,
            "region_name": env.str("MEDIA_S3_REGION", default="") or None,
            "access_key": env.str("MEDIA_S3_ACCESS_KEY_ID", default="") or None,
            "secret_key": env.str("MEDIA_S3_SECRET_ACCESS_KEY", default="") or None,
            "addressing_style": env.str("MEDIA_S3_ADDRESSING_STYLE", default="") or None,
            "location": env.str("MEDIA_S3_PREFIX", default=""),
            # A name is never reused: a document replaced is a new object.
            "file_overwrite": False,
        },
    }
else:
    DEFAULT_STORAGE = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": DEFAULT_STORAGE,
    "staticfiles": {
        # Hashed names (long-cached) need `collectstatic` first, as production does.
        "BACKEND": "config.staticfiles.ManifestStorage"  # whitenoise's, without source maps
        if env.bool("STATIC_MANIFEST", default=not DEBUG)
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
