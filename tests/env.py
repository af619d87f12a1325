"""Loaded by pytest before Django reads its settings (`-p tests.env` in pyproject.toml): tests run
as production does, with DEBUG off, so they get test-only secrets here instead of the development
defaults (which DEBUG off refuses). The workers and servers the tests start inherit them."""

import os

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-never-used-outside-the-test-suite-0123")
os.environ.setdefault("SANDBOX_CARD_SECRET_KEY", "test-only-sandbox-card-secret-key-0123456789")
# The merchants' receivers of the tests listen on 127.0.0.1, as a developer's would.
os.environ.setdefault("WEBHOOK_ALLOW_PRIVATE_NETWORKS", "true")
# Static files are served as found, without `collectstatic`'s hashed names.
os.environ.setdefault("STATIC_MANIFEST", "false")
# Without DATABASE_URL and REDIS_URL the tests run on SQLite and the embedded broker, on purpose.
if not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
    os.environ.setdefault("EMBEDDED", "true")
