"""The roles of a merchant's team and the role table: permission → the roles that hold it
(docs/guides/dashboard.md). Data only, so that the models and the pages' guard both read it."""

from django.db import models
from django.utils.translation import gettext_lazy as _


class Role(models.TextChoices):
    OWNER = "owner", _("Owner")
    ADMIN = "admin", _("Admin")
    DEVELOPER = "developer", _("Developer")
    FINANCE = "finance", _("Finance")
    SUPPORT = "support", _("Support")
    VIEWER = "viewer", _("Viewer")


OWNER, ADMIN, DEVELOPER, FINANCE, SUPPORT, VIEWER = (
    Role.OWNER,
    Role.ADMIN,
    Role.DEVELOPER,
    Role.FINANCE,
    Role.SUPPORT,
    Role.VIEWER,
)

# The role table of docs/guides/dashboard.md: permission → the roles that hold it.
PERMISSIONS: dict[str, frozenset[str]] = {
    # see payments, refunds, payouts, balance, payment links, the price plan
    "view": frozenset({OWNER, ADMIN, DEVELOPER, FINANCE, SUPPORT, VIEWER}),
    "refund": frozenset({OWNER, ADMIN, FINANCE, SUPPORT}),
    # create and deactivate payment links
    "payment_links": frozenset({OWNER, ADMIN, FINANCE, SUPPORT}),
    # payouts, payout batches (create, approve), statements export
    "payouts": frozenset({OWNER, ADMIN, FINANCE}),
    # API keys, webhook endpoint, events and resend
    "developers": frozenset({OWNER, ADMIN, DEVELOPER}),
    # team, business settings, audit log (admins: not over owners, see may_manage)
    "team": frozenset({OWNER, ADMIN}),
    # security settings, transfer ownership
    "security": frozenset({OWNER}),
    # the application for live mode (docs/guides/going-live.md)
    "activation": frozenset({OWNER}),
}
# Settlements: a withdrawal to the merchant's own account, and the schedule of automatic ones,
# are the payout roles'; the accounts they go to are the owner's alone, as the security settings
# are (a new account is where a stolen session would send the money).
PERMISSIONS["settlements"] = PERMISSIONS["payouts"]
PERMISSIONS["settlement_accounts"] = PERMISSIONS["security"]
# Live API keys (create, revoke): a live key can move money, so only the roles that hold both
# the payout right and the key right (owner, admin); a developer manages the test keys.
PERMISSIONS["live_keys"] = PERMISSIONS["payouts"] & PERMISSIONS["developers"]


def roles_with(perm: str) -> frozenset[str]:
    return PERMISSIONS[perm]
