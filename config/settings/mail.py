"""Mail: how it leaves (EMAIL_URL), its sender and the SMTP server's timeout."""

from config.settings.base import env, public_url

# EMAIL_URL in django-environ's syntax: smtp://user:password@host:587 (smtp+tls://, smtp+ssl://),
# consolemail:// (the default: mails printed to the log, as `make run` shows them).
vars().update(env.email_url("EMAIL_URL", default="consolemail://"))
DEFAULT_FROM_EMAIL = env.str(
    "DEFAULT_FROM_EMAIL", default=f"no-reply@{public_url.hostname or 'localhost'}"
)
SERVER_EMAIL = DEFAULT_FROM_EMAIL
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=10)
