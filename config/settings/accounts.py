"""The merchant dashboard's accounts (django-allauth): sign-in by e-mail address, sign-up, password
reset, allauth's rate limits, two-factor (TOTP and recovery codes), the session's length, and
team invitations."""

from config.settings.base import env, public_url

# The dashboard's sign-in, sign-up and password reset are allauth's, at its default paths and
# field names (/accounts/…, docs/guides/dashboard.md); failed sign-ins are counted by axes (the
# security part, per e-mail address and client address) and by allauth's own rate limits.
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "/dashboard/"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_FORMS = {"signup": "dashboard.forms.SignupForm"}
ACCOUNT_ADAPTER = "dashboard.adapter.AccountAdapter"
# A member is known by the e-mail address they signed up with: allauth's banners ("signed in as
# …") and mails name it, never the username allauth derives for its own use.
ACCOUNT_USER_DISPLAY = "dashboard.adapter.user_display"
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_UNIQUE_EMAIL = True
# The link in the verification mail signs the new member in (on the browser that signed up).
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGOUT_ON_PASSWORD_CHANGE = True
# The link of a password reset mail signs its reader in (then asks for the code, with TOTP): a
# member locked out by others' failures is in at once (docs/operations/security.md).
ACCOUNT_LOGIN_ON_PASSWORD_RESET = True
# Live sensitive actions ask for the password or a code given within 10 minutes
# (docs/guides/dashboard.md).
ACCOUNT_REAUTHENTICATION_TIMEOUT = 600
ACCOUNT_EMAIL_SUBJECT_PREFIX = ""
# allauth's limits, counted in the cache per client address (dashboard.adapter's, behind
# THROTTLE_TRUSTED_PROXIES) or per e-mail address; its defaults for the others. Sign-ups (every
# form sent) per address, so that one address cannot mail confirmations to any recipients; a
# confirmation mail to one address once per 3 minutes (docs/operations/security.md).
ACCOUNT_RATE_LIMITS = {"signup": "10/h/ip", "confirm_email": "1/3m/key"}
ACCOUNT_DEFAULT_HTTP_PROTOCOL = public_url.scheme or "http"
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes"]
# The two-factor step writes the codes allauth's rate limit refuses in the audit log.
MFA_FORMS = {"authenticate": "dashboard.mfa.TwoFactorForm"}
MFA_TOTP_ISSUER = env.str("MFA_TOTP_ISSUER", default="Payments")
# A dashboard session ends after this many seconds, and when its password changes.
SESSION_COOKIE_AGE = env.int("DASHBOARD_SESSION_AGE", default=12 * 3600)
SESSION_COOKIE_SAMESITE = "Lax"
# Days an invitation to a merchant's team stays valid.
DASHBOARD_INVITATION_DAYS = env.int("DASHBOARD_INVITATION_DAYS", default=7)
# Merchant notifications (contract §23): the notices that come within this many seconds of the
# last one of their kind are grouped into the next one (docs/guides/notifications.md).
NOTIFY_GROUP_SECONDS = env.int("NOTIFY_GROUP_SECONDS", default=300)
# The local hour of each merchant's daily summary of the day before.
NOTIFY_SUMMARY_HOUR = 7
