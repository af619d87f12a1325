"""The environment, and what every other part of the settings reads first: where the code and
this machine's own files are, DEBUG, the secret key, the public address and the hosts served.

Every variable read by the settings is listed in docs/operations/configuration.md (a test checks
that the two agree: tests/deploy/test_settings_documented.py).
"""

from pathlib import Path
from urllib.parse import urlsplit

import environ
from django.core.exceptions import ImproperlyConfigured

env = environ.Env()

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = Path(env.str("VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

# Off unless asked for: `make run` turns it on for the embedded set-up on one machine.
DEBUG = env.bool("DEBUG", default=False)

_DEV_SECRET_KEY = "dev-only-insecure-secret-key-change-me-in-production-0123456789"
SECRET_KEY = env.str("SECRET_KEY", default=_DEV_SECRET_KEY if DEBUG else "")
if not SECRET_KEY:
    raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off.")

PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="http://127.0.0.1:8000").rstrip("/")
# Its parts, which the hosts, the cookies, the sender of mails and allauth's links derive from.
public_url = urlsplit(PUBLIC_BASE_URL)

ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS",
    default=(["localhost", "127.0.0.1", "[::1]", "testserver"] if DEBUG else [])
    + ([public_url.hostname] if public_url.hostname else []),
)
CSRF_TRUSTED_ORIGINS = env.list(
    "CSRF_TRUSTED_ORIGINS", default=[f"{public_url.scheme}://{public_url.netloc}"]
)
