"""Staff sign in through the accounts' sign-in (`/accounts/login/`, their e-mail address and
password, then a code), never the admin's own form; no admin page answers before the second
factor; failed sign-ins of a staff account are limited across every address, and a password reset
by e-mail lifts the lock (dashboard/staff.py, dashboard/signin.py, config/urls.py)."""

import re
import time
import uuid
from io import StringIO

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command
from django.test import Client

from dashboard.models import AuditEntry
from tests.addressed import From
from tests.factories import with_totp
from tests.helpers import totp_code, totp_secret

PASSWORD = "Gombe-staff-2026!"
SECRET = re.compile(r"\b([A-Z2-7]{32})\b")


def staff_from_the_shell(email: str, **extra):
    """`User(email=…, is_staff=True)` as the staff guide says, in the shell."""
    user = get_user_model()(username=email.split("@")[0], email=email, is_staff=True, **extra)
    user.set_password(PASSWORD)
    user.save()
    return user


@pytest.mark.django_db
def test_a_new_staff_member_signs_in_sets_up_totp_then_reaches_the_admin(settings):
    settings.MFA_TOTP_TOLERANCE = 1
    staff_from_the_shell("Amani.Staff@Example.cd", is_superuser=True)
    client = Client()

    # The admin sends to the accounts' sign-in, keeping the page asked for.
    answer = client.get("/admin/payments/merchant/")
    assert answer.status_code == 302 and answer.url.startswith("/admin/login/")
    answer = client.get(answer.url)
    assert answer.status_code == 302
    assert answer.url == "/accounts/login/?next=%2Fadmin%2Fpayments%2Fmerchant%2F"
    # The admin's own form takes no password: it sends to /accounts/login/ like any admin page.
    answer = client.post("/admin/login/", {"username": "Amani.Staff", "password": PASSWORD})
    assert answer.status_code == 302 and answer.url.startswith("/accounts/login/")
    assert "_auth_user_id" not in client.session

    # Address and password, no confirmation mail first: the address counts as verified.
    answer = client.post(
        "/accounts/login/?next=/admin/payments/merchant/",
        {"login": "amani.staff@example.cd", "password": PASSWORD},
    )
    assert answer.status_code == 302 and answer.url == "/admin/payments/merchant/"
    assert mail.outbox == []
    assert EmailAddress.objects.filter(email="amani.staff@example.cd", verified=True).exists()

    # No admin page before two-factor is set up: every one sends to its set-up.
    for path in ("/admin/", "/admin/payments/merchant/", "/admin/overview/", "/admin/login/"):
        answer = client.get(path)
        assert answer.status_code == 302 and answer.url == "/accounts/2fa/totp/activate/", path
    # allauth asks for the password again before a two-factor change, then shows the secret.
    answer = client.get("/accounts/2fa/totp/activate/", HTTP_ACCEPT_LANGUAGE="fr")
    assert answer.status_code == 302 and answer.url.startswith("/accounts/reauthenticate/")
    page = client.post(answer.url, {"password": PASSWORD}, follow=True, HTTP_ACCEPT_LANGUAGE="fr")
    assert page.redirect_chain[-1][0] == "/accounts/2fa/totp/activate/"
    assert "Le personnel se connecte avec la double authentification" in page.text
    secret = SECRET.search(page.text).group(1)  # the secret as text, beside the QR code
    assert "<svg" in page.text or "data:image/svg+xml" in page.text
    assert (
        client.post("/accounts/2fa/totp/activate/", {"code": totp_code(secret)}).status_code == 302
    )
    assert client.get("/admin/payments/merchant/").status_code == 200

    # Next time: the password, then the code, before any admin page.
    fresh = Client()
    answer = fresh.post(
        "/accounts/login/", {"login": "amani.staff@example.cd", "password": PASSWORD}
    )
    assert answer.status_code == 302 and answer.url == "/accounts/2fa/authenticate/"
    answer = fresh.get("/admin/")
    assert answer.status_code == 302 and "/login/" in answer.url
    # The code of this period was spent on the set-up: the next one (as apps drift, allowed).
    answer = fresh.post(
        "/accounts/2fa/authenticate/", {"code": totp_code(secret, time.time() + 30)}
    )
    assert answer.status_code == 302 and answer.url == "/admin/"  # staff land on the admin
    assert fresh.get("/admin/").status_code == 200


@pytest.mark.django_db
def test_createsuperuser_and_the_admin_give_a_verified_address(django_user_model):
    staff = django_user_model.objects.create_superuser("ops", "Ops@Example.cd", PASSWORD)
    assert EmailAddress.objects.filter(user=staff, email="ops@example.cd", verified=True).exists()
    member = django_user_model.objects.create_user("kin", "kin@example.cd", PASSWORD)
    EmailAddress.objects.create(user=member, email="kin@example.cd", verified=False, primary=True)
    member.is_staff = True  # made staff later, in the admin
    member.save()
    assert EmailAddress.objects.get(user=member).verified
    # An address another account has verified stays theirs.
    other = django_user_model.objects.create_user("twin", "twin@example.cd", PASSWORD)
    EmailAddress.objects.create(user=other, email="twin@example.cd", verified=True, primary=True)
    clash = django_user_model.objects.create_superuser("clash", "twin@example.cd", PASSWORD)
    assert not EmailAddress.objects.filter(user=clash).exists()
    # Not staff: nothing is vouched for.
    plain = django_user_model.objects.create_user("plain", "plain@example.cd", PASSWORD)
    assert not EmailAddress.objects.filter(user=plain).exists()


@pytest.mark.django_db(transaction=True)
def test_failed_staff_sign_ins_lock_the_account_from_every_address(live_server, settings):
    """The limit counts the account's failures from all addresses together: a guesser with many
    addresses gets no more than THROTTLE_STAFF_SIGN_IN passwords an hour (allauth's own limits,
    which would refuse earlier within five minutes, are set aside to count axes')."""
    settings.ACCOUNT_RATE_LIMITS = False
    settings.THROTTLE_STAFF_SIGN_IN = "20/h"
    settings.THROTTLE_ADMIN_LOGIN = "10/h"
    email = f"ops-{uuid.uuid4().hex[:8]}@example.cd"
    staff = with_totp(staff_from_the_shell(email, is_superuser=True))

    statuses = []
    for i in range(25):  # five addresses, five each: under any per-address limit
        guesser = From(live_server.url, f"127.0.0.{2 + i % 5}")
        statuses.append(guesser.sign_in(email, f"wrong-{i}").status)
    assert statuses == [200] * 19 + [429] * 6  # the 20th failure locks the account

    # The right password from a sixth address: the pause page, no session, no admin.
    owner = From(live_server.url, "127.0.0.7", language="fr")
    answer = owner.sign_in(email, PASSWORD, next_path="/admin/")
    assert answer.status == 429 and int(answer.headers["Retry-After"]) == 3600
    assert "Trop de tentatives" in answer.text
    assert "Une réinitialisation du mot de passe par e-mail débloque le compte" in answer.text
    assert 'href="/accounts/password/reset/"' in answer.text
    assert owner.get("/admin/").status == 302
    assert AuditEntry.objects.filter(action="login.succeeded", email=email).count() == 0

    # Another staff member and a merchant's member are not affected.
    other = with_totp(staff_from_the_shell(f"other-{uuid.uuid4().hex[:8]}@example.cd"))
    assert From(live_server.url, "127.0.0.2").sign_in(other.email, PASSWORD).status == 302

    # A password reset by e-mail lifts the lock at once, from wherever the staff member is.
    mail.outbox.clear()
    assert owner.post("/accounts/password/reset/", {"email": email}).status == 302
    (reset_mail,) = mail.outbox
    answer = owner.follow_reset_link(reset_mail.body, "Nouveau-mot-2026!")
    assert answer.status == 302 and answer.location == "/accounts/2fa/authenticate/"
    answer = owner.post("/accounts/2fa/authenticate/", {"code": totp_code(totp_secret(staff))})
    assert answer.status == 302 and answer.location == "/admin/"
    assert owner.get("/admin/").status == 200
    elsewhere = From(live_server.url, "127.0.0.3")
    answer = elsewhere.sign_in(email, "Nouveau-mot-2026!")
    assert answer.status == 302 and answer.location == "/accounts/2fa/authenticate/"


@pytest.mark.django_db
def test_the_demo_prints_how_staff_get_in(settings, tmp_path):
    """`make run`'s demo: a staff line that works, the same on every run, leading to the
    two-factor set-up before the admin."""
    settings.VAR_DIR = tmp_path
    outputs = []
    for _ in range(2):
        out = StringIO()
        call_command("demomerchant", stdout=out)
        outputs.append(out.getvalue())
    (line,) = [line for line in outputs[0].splitlines() if line.startswith("Admin (staff):")]
    assert line in outputs[1] and f"{settings.PUBLIC_BASE_URL}/admin/" in line
    words = line.split()
    email, password = words[words.index("e-mail") + 1], words[words.index("password") + 1]
    client = Client()
    answer = client.post("/accounts/login/", {"login": email, "password": password})
    assert answer.status_code == 302 and answer.url == "/admin/"
    answer = client.get("/admin/")
    assert answer.status_code == 302 and answer.url == "/accounts/2fa/totp/activate/"
    assert oct((tmp_path / "demo-staff.json").stat().st_mode)[-3:] == "600"
