"""What the dashboard does when a settlement account is added or removed, in the dashboard or
through the API (core.events.settlement_account_changed): an audit row, and for a new live
account a mail to every owner and admin at once, each in their language. Settlements go to that
account once its hold ends: whoever holds a stolen password or key and adds an account of their
own must not be the only one to know (docs/guides/dashboard.md#settlement-accounts)."""

from allauth.core import context
from django.conf import settings
from django.core.mail import send_mass_mail
from django.db import transaction
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation

from dashboard import audit, languages, words
from dashboard.models import Action, Membership, Role

ACTIONS = {
    "added": Action.SETTLEMENT_ACCOUNT_ADDED,
    "removed": Action.SETTLEMENT_ACCOUNT_REMOVED,
}


def account_changed(sender, *, instance, action: str, by: str = "", **kwargs) -> None:
    """One audit row in the merchant's log, of the account's mode; "who" is the member signed in
    to the dashboard, else `by` (an API key). A live account added is mailed about."""
    merchant = instance.merchant
    audit.record(
        context.request,  # the request being answered (allauth's), None in a command
        ACTIONS[action],
        merchant=merchant,
        mode="live" if instance.livemode else "test",
        object_id=instance.id,
        email=by,
        details=words.account_details(instance, time_zone=merchant.time_zone),
    )
    if action == "added" and instance.livemode:
        _team_told(instance, by)


def _team_told(account, by: str) -> None:
    """A mail to each owner and admin, in their language, once the account is written."""
    merchant = account.merchant
    team = list(
        Membership.objects.filter(merchant=merchant, role__in=[Role.OWNER, Role.ADMIN])
        .select_related("user")
        .order_by("created_at")
    )
    spoken = languages.languages_of([member.user_id for member in team])
    url = settings.PUBLIC_BASE_URL + reverse("dashboard:settings-settlement")
    audit_url = settings.PUBLIC_BASE_URL + reverse("dashboard:audit")
    messages = []
    for member in team:
        with translation.override(spoken[member.user_id]):
            context_ = {
                "merchant": merchant,
                "who": by,
                "account": words.account_name(account),
                "holder": account.account_holder,
                "when": words.local_moment(account.available_from, merchant.time_zone),
                "owner": member.role == Role.OWNER,
                "url": url,
                "audit_url": audit_url,
            }
            subject = render_to_string(
                "dashboard/email/settlement_account_added_subject.txt", context_
            ).strip()
            body = render_to_string(
                "dashboard/email/settlement_account_added_message.txt", context_
            )
        messages.append((subject, body, None, [member.user.email]))
    if messages:
        # robust: the account is added whatever the mail server says (its failure is logged).
        transaction.on_commit(lambda: send_mass_mail(messages), robust=True)
