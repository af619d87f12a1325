"""Accounts (docs/guides/dashboard.md): sign-up with the business's name → a verification mail
through a real SMTP server → the link → sign-in; TOTP two-factor; failed sign-ins locked out per
account and address; the audit rows each of these writes."""

import re
import time
import uuid
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.test import Client, TestCase

from dashboard.models import AuditEntry, Membership
from payments.models import ApiKey
from tests.dashboard.conftest import PASSWORD, body_of, make_member, totp_code
from tests.helpers import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

capture_on_commit = TestCase.captureOnCommitCallbacks
SECRET = re.compile(r'id="authenticator_secret"[^>]*?value="([A-Z2-7]+)"')


def sign_in(client: Client, email: str, password: str = PASSWORD, **extra):
    return client.post("/accounts/login/", {"login": email, "password": password}, **extra)


def test_sign_up_mail_link_then_sign_in(smtp_sink):
    client = Client()
    page = client.get("/accounts/signup/").content.decode()
    for field in ("email", "password1", "password2", "business_name"):
        assert f'name="{field}"' in page
    response = client.post(
        "/accounts/signup/",
        {"email": "Amani@Example.com", "business_name": "Chez Amani", "password1": PASSWORD,
         "password2": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 302
    user = get_user_model().objects.get(email__iexact="amani@example.com")
    membership = Membership.objects.get(user=user)
    assert (membership.role, membership.merchant.name) == ("owner", "Chez Amani")
    assert not membership.merchant.live_approved
    assert set(ApiKey.objects.filter(merchant=membership.merchant).values_list("mode", flat=True))

    # Not before the address is confirmed.
    other = Client()
    response = sign_in(other, "amani@example.com")
    assert other.get("/dashboard/test/").status_code == 302

    # the verification mail, and again when the unconfirmed address tried to sign in
    message = smtp_sink.messages[0]
    assert [m["To"].lower() for m in smtp_sink.messages] == ["amani@example.com"] * 2
    (link,) = re.findall(r"https?://\S+/accounts/confirm-email/\S+/", body_of(message))
    path = urlsplit(link).path
    assert client.get(path).status_code == 200
    assert client.post(path).status_code == 302
    assert client.get("/dashboard/test/").status_code == 200  # signed in by the link

    fresh = Client()
    response = sign_in(fresh, "amani@example.com")
    assert response.status_code == 302 and response.url == "/dashboard/"
    page = fresh.get("/dashboard/test/").content.decode()
    assert "Chez Amani" in page
    # signed in by the link, then with the password (the refused attempt was no wrong password)
    assert list(
        AuditEntry.objects.filter(merchant=membership.merchant)
        .order_by("id")
        .values_list("action", flat=True)
    ) == ["login.succeeded", "login.succeeded"]


def test_sign_up_needs_a_business_name_and_is_atomic(db):
    response = Client().post(
        "/accounts/signup/",
        {"email": "x@example.com", "business_name": " ", "password1": PASSWORD,
         "password2": PASSWORD},
    )  # fmt: skip
    assert response.status_code == 200
    assert 'name="business_name"' in response.content.decode()
    assert not get_user_model().objects.filter(email="x@example.com").exists()


def _activate_totp(client, password: str = PASSWORD) -> str:
    """allauth asks for the password again before a two-factor change, then shows the secret."""
    response = client.get("/accounts/2fa/totp/activate/")
    assert response.status_code == 302 and response.url.startswith("/accounts/reauthenticate/")
    client.post(response.url, {"password": password})
    page = client.get("/accounts/2fa/totp/activate/")
    assert page.status_code == 200
    secret = SECRET.search(page.content.decode()).group(1)
    with capture_on_commit(execute=True):  # allauth announces it once committed
        response = client.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)})
    assert response.status_code == 302
    return secret


def test_totp_activation_then_a_code_after_the_password(shop, settings):
    settings.MFA_TOTP_TOLERANCE = 1  # the code of the next period too, as apps drift
    member = make_member(shop, "owner")
    client = Client()
    sign_in(client, member.user.email)
    secret = _activate_totp(client)
    assert ("mfa.activated", member.user.email) in AuditEntry.objects.values_list("action", "email")

    fresh = Client()
    response = sign_in(fresh, member.user.email)
    assert response.status_code == 302 and response.url == "/accounts/2fa/authenticate/"
    assert fresh.get("/dashboard/test/").status_code == 302  # not signed in yet
    page = fresh.get(response.url).content.decode()
    assert 'name="code"' in page
    assert fresh.post(response.url, {"code": "000000"}).status_code == 200
    response = fresh.post(response.url, {"code": totp_code(secret, time.time() + 30)})
    assert response.status_code == 302
    assert fresh.get("/dashboard/test/").status_code == 200

    # deactivating it is audited too
    fresh.post("/accounts/reauthenticate/", {"password": PASSWORD})
    with capture_on_commit(execute=True):
        fresh.post("/accounts/2fa/totp/deactivate/")
    actions = list(AuditEntry.objects.filter(merchant=shop).values_list("action", flat=True))
    assert "mfa.deactivated" in actions


def test_a_wrong_two_factor_code_is_a_failed_sign_in(shop, settings):
    """Whoever has the password but not the code fails at the second step: each wrong code is
    one failed sign-in in the log, as a wrong password is."""
    settings.MFA_TOTP_TOLERANCE = 1
    member = make_member(shop, "owner")
    first = Client()
    sign_in(first, member.user.email)
    _activate_totp(first)

    attacker = Client()
    response = sign_in(attacker, member.user.email)
    assert response.url == "/accounts/2fa/authenticate/"
    for _ in range(3):
        assert attacker.post(response.url, {"code": "000000"}).status_code == 200
    assert attacker.get("/dashboard/test/").status_code == 302
    failed = AuditEntry.objects.filter(merchant=shop, action="login.failed")
    assert list(failed.values_list("email", flat=True)) == [member.user.email] * 3


def test_two_factor_codes_refused_by_allauths_rate_limit_are_failed_sign_ins(shop, settings):
    """Past allauth's limit of failed codes for the account, the next codes are refused before
    they are looked at (no signal): each is a failed sign-in in the log all the same."""
    settings.MFA_TOTP_TOLERANCE = 1
    member = make_member(shop, "owner")
    first = Client()
    sign_in(first, member.user.email)
    _activate_totp(first)
    settings.ACCOUNT_RATE_LIMITS = {}  # allauth's defaults, as deployed
    ip = f"10.{uuid.uuid4().int % 200}.9.1"  # the limits' counts outlive a test, in the cache
    attacker = Client(REMOTE_ADDR=ip)
    response = sign_in(attacker, member.user.email, REMOTE_ADDR=ip)
    assert response.url == "/accounts/2fa/authenticate/"
    said = [
        attacker.post(response.url, {"code": "000000"}, HTTP_ACCEPT_LANGUAGE="en").content
        for _ in range(8)
    ]
    # allauth's limit, 5 in 5 minutes, in its words as the adapter gives them (the way out)
    assert b"Too many failed sign-ins for this account" in said[-1]
    assert attacker.get("/dashboard/test/").status_code == 302
    failed = AuditEntry.objects.filter(merchant=shop, action="login.failed")
    assert list(failed.values_list("email", "ip")) == [(member.user.email, ip)] * 8


def test_the_team_may_be_required_to_use_two_factor(shop, settings):
    settings.MFA_TOTP_TOLERANCE = 1
    owner = make_member(shop, "owner")
    viewer = make_member(shop, "viewer")
    client = Client()
    sign_in(client, owner.user.email)
    _activate_totp(client)
    client.post("/dashboard/settings/security/", {"require_two_factor": "on"})
    other = Client()
    sign_in(other, viewer.user.email)
    for path in ("/dashboard/test/", "/dashboard/audit/", "/dashboard/test/"):
        response = other.get(path)
        assert response.status_code == 302 and response.url == "/accounts/2fa/totp/activate/"
    # The payments search, asked by htmx for its results: the whole page goes to the set-up
    # (htmx would paste the set-up page into the results).
    search = other.get(
        "/dashboard/test/payments/",
        {"q": "savon"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TARGET="payments-results",
    )
    assert search.status_code == 200 and search["HX-Redirect"] == "/accounts/2fa/totp/activate/"
    _activate_totp(other)
    assert other.get("/dashboard/test/").status_code == 200


@pytest.mark.urls("tests.dashboard.guarded_urls")
def test_live_sensitive_actions_need_two_factor_and_a_recent_sign_in(shop, settings):
    settings.MFA_TOTP_TOLERANCE = 1
    shop.live_approved = True
    shop.save()
    member = make_member(shop, "owner")
    client = Client()
    sign_in(client, member.user.email)
    assert client.post("/guarded/test/sensitive/").status_code == 200  # test mode: no condition
    response = client.post("/guarded/live/sensitive/")
    assert response.status_code == 302 and response.url == "/accounts/2fa/"
    secret = _activate_totp(client)
    assert client.post("/guarded/live/sensitive/").status_code == 200  # signed in just now

    # An hour later (a session whose sign-in is older than ACCOUNT_REAUTHENTICATION_TIMEOUT):
    fresh = Client()
    sign_in(fresh, member.user.email)
    response = fresh.post(
        "/accounts/2fa/authenticate/", {"code": totp_code(secret, time.time() + 30)}
    )
    assert fresh.post("/guarded/live/sensitive/").status_code == 200
    settings.ACCOUNT_REAUTHENTICATION_TIMEOUT = 0
    response = fresh.post("/guarded/live/sensitive/")
    assert response.status_code == 302 and "reauthenticate" in response.url
    assert AuditEntry.objects.filter(object_id="guarded:sensitive").count() == 3
    settings.ACCOUNT_REAUTHENTICATION_TIMEOUT = 600
    response = fresh.post(response.url, {"password": PASSWORD})
    assert response.status_code == 200  # the suspended action resumed once confirmed
    assert AuditEntry.objects.filter(object_id="guarded:sensitive").count() == 4
    rows = AuditEntry.objects.filter(object_id="guarded:sensitive").values_list("mode", flat=True)
    assert sorted(rows) == ["live", "live", "live", "test"]


def test_failed_sign_ins_lock_the_account_out_from_that_address(shop, settings):
    settings.THROTTLE_ADMIN_LOGIN = "3/h"
    member = make_member(shop, "finance")
    email = member.user.email
    for _ in range(2):
        assert sign_in(Client(), email.upper(), "wrong-password").status_code == 200
    assert sign_in(Client(), email, "wrong-password").status_code == 429  # the third: locked
    client = Client()
    response = sign_in(client, email)  # the right password, too late
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert client.get("/dashboard/test/").status_code == 302
    # another address is not locked out
    other = Client(REMOTE_ADDR="10.1.2.3")
    assert sign_in(other, email, REMOTE_ADDR="10.1.2.3").status_code == 302
    failed = AuditEntry.objects.filter(action="login.failed", merchant=shop)
    assert failed.count() >= 3
    assert set(failed.values_list("email", flat=True)) <= {email.upper(), email}


class CountingHasher(PBKDF2PasswordHasher):
    """Django's hasher, counting the passwords it checks."""

    def verify(self, password, encoded):
        checked.append(password)
        return super().verify(password, encoded)


checked: list[str] = []


@pytest.mark.django_db(transaction=True)
def test_wrong_passwords_sent_at_once_check_no_more_than_the_limit(shop, settings):
    settings.THROTTLE_ADMIN_LOGIN = "5/h"
    member = make_member(shop, "support")
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    checked.clear()
    statuses = race(lambda: sign_in(Client(), member.user.email, "wrong").status_code, count=12)
    assert len(checked) == 5  # the others never reached the password
    assert sorted(statuses) == [200] * 4 + [429] * 8
    assert sign_in(Client(), member.user.email).status_code == 429


def test_sign_ins_refused_by_allauths_rate_limit_are_failed_sign_ins(shop, settings):
    """allauth's per-address limit refuses the 6th attempt on, before any password is checked:
    each refused one is a failed sign-in in the log all the same."""
    settings.ACCOUNT_RATE_LIMITS = {}  # allauth's defaults, as deployed
    # The limits' counts live in the cache, which outlives a test: an address and client
    # addresses of this run's own.
    run = uuid.uuid4()
    member = make_member(shop, "viewer", email=f"{run.hex[:8]}@example.com")
    statuses = []
    for i in range(8):  # from eight client addresses: axes counts per address, never 3 here
        ip = f"10.{run.int % 200}.{i}.1"
        statuses.append(sign_in(Client(), member.user.email, "wrong", REMOTE_ADDR=ip).status_code)
    assert statuses == [200] * 8
    failed = AuditEntry.objects.filter(merchant=shop, action="login.failed")
    assert list(failed.values_list("email", flat=True)) == [member.user.email] * 8
