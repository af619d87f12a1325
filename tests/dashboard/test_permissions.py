"""The role table of docs/guides/dashboard.md, page by page: a role without the permission gets the
403 page and nothing changes; another merchant's objects answer 404; live mode only once
approved."""

import pytest

from dashboard.models import AuditEntry, Invitation, Membership, MerchantSettings
from dashboard.permissions import PERMISSIONS, can
from tests.dashboard.conftest import make_member, signed_in

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

ROLES = ["owner", "admin", "developer", "finance", "support", "viewer"]
# The role table of docs/guides/dashboard.md, spelled out here independently of
# dashboard.permissions.
TABLE = {
    "view": {"owner", "admin", "developer", "finance", "support", "viewer"},
    "refund": {"owner", "admin", "finance", "support"},
    "payment_links": {"owner", "admin", "finance", "support"},
    "payouts": {"owner", "admin", "finance"},
    "developers": {"owner", "admin", "developer"},
    "team": {"owner", "admin"},
    "security": {"owner"},
    # The application for live mode (docs/guides/going-live.md).
    "activation": {"owner"},
    # Amended: live keys (create, revoke) need both the payout right and the key right.
    "live_keys": {"owner", "admin"},
    # Withdrawals and the schedule: the payout roles'; settlement accounts: the owner's.
    "settlements": {"owner", "admin", "finance"},
    "settlement_accounts": {"owner"},
}


def test_the_map_is_the_contracts_table():
    assert set(PERMISSIONS) == set(TABLE)
    for perm, roles in TABLE.items():
        for role in ROLES:
            assert can(Membership(role=role), perm) is (role in roles), (perm, role)
    assert not can(None, "view")


@pytest.mark.urls("tests.dashboard.guarded_urls")
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("perm", sorted(TABLE))
def test_every_permission_for_every_role(shop, role, perm):
    """A guarded view of each permission: allowed roles reach it; the others get the 403 page
    before it runs, so the audit row it would write is never written."""
    member = make_member(shop, role)
    client = signed_in(member.user)
    response = client.post(f"/guarded/test/{perm}/")
    rows = AuditEntry.objects.filter(object_id=f"guarded:{perm}")
    if role in TABLE[perm]:
        assert response.status_code == 200
        assert response.content.decode() == f"{perm} {shop.pk} test {role}"
        assert rows.count() == 1
    else:
        assert response.status_code == 403
        assert b"Nothing was changed" in response.content or "Rien n" in response.content.decode()
        assert rows.count() == 0


@pytest.mark.parametrize("role", ROLES)
def test_settings_pages_by_role(shop, role):
    """The real pages: business settings, invitations and the audit log (team), security
    (owner): 403 and nothing changed for the others."""
    member = make_member(shop, role)
    client = signed_in(member.user)
    may_team, may_security = role in TABLE["team"], role in TABLE["security"]

    response = client.post(
        "/dashboard/settings/business/",
        {"name": "Renamed", "support_email": "", "support_phone": ""},
    )
    shop.refresh_from_db()
    assert response.status_code == (302 if may_team else 403)
    assert (shop.name == "Renamed") is may_team

    response = client.post(
        "/dashboard/settings/team/", {"email": "new@example.com", "role": "viewer"}
    )
    assert response.status_code == (302 if may_team else 403)
    assert Invitation.objects.filter(merchant=shop).exists() is may_team

    assert client.get("/dashboard/audit/").status_code == (200 if may_team else 403)
    assert client.get("/dashboard/settings/team/").status_code == (200 if may_team else 403)

    response = client.post("/dashboard/settings/security/", {"require_second_approver": "on"})
    assert response.status_code == (302 if may_security else 403)
    assert MerchantSettings.objects.get(merchant=shop).require_second_approver is (
        True if may_security else None
    )
    assert client.get("/dashboard/test/").status_code == 200


def test_navigation_shows_only_what_the_role_may_use(shop):
    viewer = signed_in(make_member(shop, "viewer").user).get("/dashboard/test/").content.decode()
    owner = signed_in(make_member(shop, "owner").user).get("/dashboard/test/").content.decode()
    for path in (
        "/dashboard/test/developers/",
        "/dashboard/settings/business/",
        "/dashboard/audit/",
    ):
        assert path in owner
        assert path not in viewer
    assert "/dashboard/test/payments/" in viewer


def test_another_merchants_members_answer_404_and_stay(shop, other_shop):
    admin = make_member(shop, "owner")
    stranger = make_member(other_shop, "viewer", email="stranger@example.com")
    client = signed_in(admin.user)
    role_url = f"/dashboard/settings/team/{stranger.pk}/role/"
    for role in ("admin", "boss", ""):  # whatever role is sent, valid or not
        assert client.post(role_url, {"role": role}).status_code == 404
    assert client.post(f"/dashboard/settings/team/{stranger.pk}/remove/").status_code == 404
    response = client.post("/dashboard/settings/security/transfer/", {"member": stranger.pk})
    assert response.status_code == 404
    stranger.refresh_from_db()
    assert stranger.role == "viewer"
    assert client.post("/dashboard/switch/", {"merchant": other_shop.pk}).status_code == 404
    assert not AuditEntry.objects.filter(merchant=other_shop).exists()


def test_live_mode_only_once_approved(shop):
    client = signed_in(make_member(shop, "owner").user)
    assert client.get("/dashboard/live/").status_code == 404
    assert client.get("/dashboard/other/").status_code == 404
    shop.live_approved = True
    shop.save()
    assert client.get("/dashboard/live/").status_code == 200
    assert client.get("/dashboard/").url == "/dashboard/test/"


def test_a_user_without_a_merchant_is_offered_to_start_one(db):
    from tests.dashboard.conftest import make_user

    client = signed_in(make_user("alone@example.com"))
    assert client.get("/dashboard/test/").url == "/dashboard/start/"
    response = client.post("/dashboard/start/", {"name": "Atelier Bandal"})
    assert response.status_code == 302
    membership = Membership.objects.get(user__email="alone@example.com")
    assert (membership.role, membership.merchant.name) == ("owner", "Atelier Bandal")


def test_the_switcher_changes_the_active_merchant(shop, other_shop):
    member = make_member(shop, "owner")
    Membership.objects.create(user=member.user, merchant=other_shop, role="viewer")
    client = signed_in(member.user)
    assert "Boutique Gombe" in client.get("/dashboard/test/").content.decode()
    for unknown in ("acct_nobody", "m\x00"):  # a NUL, which PostgreSQL refuses, names none too
        assert client.post("/dashboard/switch/", {"merchant": unknown}).status_code == 404
    assert client.post("/dashboard/switch/", {"merchant": other_shop.pk}).status_code == 302
    page = client.get("/dashboard/test/").content.decode()
    assert "Pharmacie Limete" in page and "/dashboard/settings/business/" not in page
    assert client.get("/dashboard/audit/").status_code == 403  # a viewer there


def test_anonymous_visitors_are_sent_to_sign_in(db):
    from django.test import Client

    response = Client().get("/dashboard/test/")
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")


def test_the_demo_merchant_has_an_owner_who_signs_in(settings, tmp_path):
    """`make run`'s demo: demomerchant prints a sign-in line that works, the same on every run."""
    from io import StringIO

    from django.core.management import call_command
    from django.test import Client

    settings.VAR_DIR = tmp_path
    outputs = []
    for _ in range(2):
        out = StringIO()
        call_command("demomerchant", stdout=out)
        outputs.append(out.getvalue())
    (line,) = [line for line in outputs[0].splitlines() if "/accounts/login/" in line]
    assert line in outputs[1]
    words = line.split()
    email, password = words[words.index("e-mail") + 1], words[words.index("password") + 1]
    assert "http://127.0.0.1:8000/accounts/login/" in line or settings.PUBLIC_BASE_URL in line
    client = Client()
    response = client.post("/accounts/login/", {"login": email, "password": password})
    assert response.status_code == 302
    page = client.get("/dashboard/test/").content.decode()
    assert "Demo Boutique Kinshasa" in page


def test_home_counts_succeeded_payments_per_currency_today_and_this_week(shop):
    """Today's and this week's succeeded charges per currency (count and sum), the balance of
    the ledger, the latest payments; the other mode's and other statuses' left out."""
    from datetime import timedelta

    from django.utils import timezone

    from tests.factories import make_charge, settled_charge

    shop.live_approved = True
    shop.save()
    now = timezone.now()
    monday = (now - timedelta(days=now.weekday())).replace(hour=9, minute=0)
    settled_charge(shop, amount=250000, currency="CDF")
    settled_charge(shop, amount=100000, currency="CDF")
    settled_charge(shop, amount=2000, currency="USD")
    make_charge(shop, status="failed", amount=900000, currency="CDF")
    if monday.date() != now.date():
        make_charge(shop, status="succeeded", at=monday, amount=50000, currency="CDF")
    week_cdf = 400000 if monday.date() != now.date() else 350000
    client = signed_in(make_member(shop, "viewer").user)
    response = client.get("/dashboard/test/", HTTP_ACCEPT_LANGUAGE="en")
    stats = [(row["currency"], row["today_count"], row["today_sum"], row["week_sum"])
             for row in response.context["totals"]]  # fmt: skip
    assert stats == [("CDF", 2, 350000, week_cdf), ("USD", 1, 2000, 2000)]
    available = {currency: amount for currency, amount, _pending in response.context["balance"]}
    assert available["USD"] > 0
    page = response.content.decode()
    assert "3,500.00 CDF" in page
    assert len(response.context["recent"]) == 4 + (monday.date() != now.date())
    live = client.get("/dashboard/live/")
    assert live.context["totals"] == [] and len(live.context["recent"]) == 0


def test_forms_refuse_a_post_without_the_csrf_token(shop):
    member = make_member(shop, "owner")
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(member.user, backend="allauth.account.auth_backends.AuthenticationBackend")
    response = client.post(
        "/dashboard/settings/business/",
        {"name": "Forged", "support_email": "", "support_phone": ""},
    )
    assert response.status_code == 403
    shop.refresh_from_db()
    assert shop.name == "Boutique Gombe"


def test_bad_business_settings_are_words_on_the_page(shop):
    client = signed_in(make_member(shop, "admin").user)
    response = client.post(
        "/dashboard/settings/business/",
        {"name": "Boutique Gombe", "support_email": "not-an-address", "support_phone": "call me"},
    )
    assert response.status_code == 200
    assert len(response.context["form"].errors) == 2
    assert not AuditEntry.objects.filter(merchant=shop).exists()


def test_another_merchants_objects_answer_404_even_to_a_role_without_the_right(shop, other_shop):
    """Another merchant's objects answer 404, never 403 — also to a role that may not act
    on such an object at all (a viewer's refund, a support's key revocation): the same answer
    as for an id that does not exist. Its own objects still get the 403 page, and nothing
    changes either way."""
    from batches.services import batch_create_from_file
    from links.services import link_create
    from payments.models import ApiKey, Refund
    from tests.factories import record_event, succeeded_mobile_money_charge

    def objects_of(merchant):
        batch = batch_create_from_file(
            merchant=merchant,
            livemode=False,
            data=b"phone,amount,currency,reference\n+243812345001,100,CDF,R-1\n",
        )
        return {
            "charge": succeeded_mobile_money_charge(merchant, amount=10000).id,
            "batch": batch.id,
            "link": link_create(
                merchant=merchant,
                livemode=False,
                currency="CDF",
                description="Pagne",
                amount=500000,
            ).id,
            "event": record_event(merchant, url="http://127.0.0.1:9/hook").id,
            "key": ApiKey.objects.filter(merchant=merchant, mode="test").first().pk,
            "member": make_member(merchant, "viewer", email=f"v-{merchant.pk[-6:]}@ex.com").pk,
        }

    ours, theirs = objects_of(shop), objects_of(other_shop)
    paths = {
        "viewer": [
            "/dashboard/test/payments/{charge}/refund/",
            "/dashboard/test/payment-links/{link}/deactivate/",
            "/dashboard/test/payouts/batches/{batch}/approve/",
            "/dashboard/test/developers/events/{event}/resend/",
            "/dashboard/test/developers/keys/{key}/revoke/",
            "/dashboard/settings/team/{member}/remove/",
        ],
        "developer": [
            "/dashboard/test/payments/{charge}/refund/",
            "/dashboard/test/payouts/batches/{batch}/reject/",
            "/dashboard/settings/team/{member}/role/",
        ],
        "support": [
            "/dashboard/test/developers/events/{event}/",
            "/dashboard/test/developers/keys/{key}/revoke/",
        ],
    }
    refunds, audit_rows = Refund.objects.count(), AuditEntry.objects.count()
    for role, templates in paths.items():
        client = signed_in(make_member(shop, role, email=f"{role}-404@example.com").user)
        for template in templates:
            assert client.post(template.format(**theirs)).status_code == 404, (role, template)
            assert client.post(template.format(**ours)).status_code == 403, (role, template)
            missing = {name: "x_missing" for name in ours}
            assert client.post(template.format(**missing)).status_code == 404, (role, template)
    assert (Refund.objects.count(), AuditEntry.objects.count()) == (refunds, audit_rows)
    assert ApiKey.objects.filter(revoked_at__isnull=False).count() == 0
