"""allauth's two-factor step of the sign-in (MFA_FORMS["authenticate"]): a code that allauth's
own rate limit refuses is a failed sign-in in the audit log too.

allauth sends its authentication_failed signal (dashboard.signals) for a wrong code only; once
too many codes failed for the account (ACCOUNT_RATE_LIMITS "login_failed"), it refuses the next
ones before looking at them, with no signal, so that refusal is written here."""

from allauth.core import context
from allauth.mfa.base.forms import AuthenticateForm
from django.core.exceptions import ValidationError

from dashboard import audit
from dashboard.models import Action

RATE_LIMITED = "too_many_login_attempts"  # the code of allauth's refusal


class TwoFactorForm(AuthenticateForm):
    def clean_code(self) -> str:
        try:
            return super().clean_code()
        except ValidationError as refused:
            if refused.code == RATE_LIMITED:
                # the request, read as allauth's own forms read it
                audit.record_for_person(context.request, Action.LOGIN_FAILED, user=self.user)
            raise
