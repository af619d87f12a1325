"""allauth's adapter: the client address as the rest of the service reads it; the sign-ins its
rate limit refuses, in the audit log; every link its mails carry on PUBLIC_BASE_URL."""

from types import SimpleNamespace
from urllib.parse import urlsplit

from allauth.account.adapter import DefaultAccountAdapter
from django.conf import settings
from django.core.exceptions import ValidationError
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from core.links import public_url
from dashboard import audit
from dashboard.models import Action


def public_site() -> SimpleNamespace:
    """The site as the mails name it (the `current_site` of allauth's templates): the host of
    PUBLIC_BASE_URL, never the one a request claims."""
    host = urlsplit(settings.PUBLIC_BASE_URL).netloc
    return SimpleNamespace(domain=host, name=host)


def user_display(user) -> str:
    """ACCOUNT_USER_DISPLAY: a member as they know themselves, by their e-mail address."""
    return user.email or str(user)


class AccountAdapter(DefaultAccountAdapter):
    # allauth's per-account limit on failed sign-ins: what lifts it at once
    # (docs/operations/security.md#sign-in-lockouts).
    error_messages = {
        **DefaultAccountAdapter.error_messages,
        "too_many_login_attempts": _(
            "Too many failed sign-ins for this account. A password reset by e-mail unlocks it at "
            "once (“Forgot your password?”); otherwise try again in a few minutes."
        ),
    }

    def get_client_ip(self, request) -> str:
        # allauth's rate limits (ACCOUNT_RATE_LIMITS) key on this: the proxies of
        # THROTTLE_TRUSTED_PROXIES, as axes and the audit log.
        return audit.client_ip(request) or super().get_client_ip(request)

    def pre_authenticate(self, request, **credentials) -> None:
        """A sign-in refused by allauth's rate limit (too many failures for the address typed,
        or from the client address) is refused before any password is checked, so Django's
        user_login_failed, which writes the other failed sign-ins, never comes."""
        try:
            super().pre_authenticate(request, **credentials)
        except ValidationError:
            typed = credentials.get("email") or credentials.get("username") or ""
            audit.record_for_person(request, Action.LOGIN_FAILED, email=str(typed))
            raise

    # --- Mail links: on PUBLIC_BASE_URL, whatever the request's Host or X-Forwarded-Host say
    # (docs/operations/security.md, "Mail links"). allauth would build them on the request's
    # host, which the client writes: a reset asked for with another Host mailed the owner a
    # valid key on that host.

    def get_email_confirmation_url(self, request, emailconfirmation) -> str:
        return public_url("account_confirm_email", emailconfirmation.key)

    def get_reset_password_from_key_url(self, key: str) -> str:
        # allauth's key is "<uidb36>-<token>"; its URL takes the two apart.
        uidb36, token = key.split("-", 1)
        path = reverse("account_reset_password_from_key", kwargs={"uidb36": uidb36, "key": token})
        return settings.PUBLIC_BASE_URL.rstrip("/") + path

    def send_account_already_exists_mail(self, email: str) -> None:
        context = {
            "signup_url": public_url("account_signup"),
            "password_reset_url": public_url("account_reset_password"),
        }
        self.send_mail("account/email/account_already_exists", email, context)

    def send_mail(self, template_prefix: str, email: str, context: dict) -> None:
        # `email`: the address the mail goes to, which the mails name (never a username).
        context = {**context, "current_site": public_site(), "email": email}
        if "signup_url" in context:  # the mail to an address with no account (password reset)
            context["signup_url"] = public_url("account_signup")
        super().send_mail(template_prefix, email, context)

    def get_login_redirect_url(self, request) -> str:
        """Staff land on the admin (when the sign-in named no page), members on the dashboard."""
        if request.user.is_staff:
            return reverse("admin:index")
        return super().get_login_redirect_url(request)
