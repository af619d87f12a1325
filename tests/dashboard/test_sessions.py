"""The dashboard's sessions (docs/guides/dashboard.md): cookies HttpOnly and SameSite=Lax, Secure
under https, ending after DASHBOARD_SESSION_AGE; a password change ends every session of the person,
the one that changed it included; a two-factor change ends the others."""

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import Client, TestCase
from django.utils import timezone

from tests.dashboard.conftest import PASSWORD, make_member, signed_in
from tests.dashboard.test_accounts import _activate_totp, sign_in
from tests.helpers import database_url_for_subprocess

pytestmark = pytest.mark.postgres


@pytest.mark.django_db
def test_a_password_change_ends_every_session_of_the_person(owner):
    here, elsewhere = Client(), Client()  # a computer at the shop, a phone at home
    for client in (here, elsewhere):
        sign_in(client, owner.user.email)
        assert client.get("/dashboard/test/").status_code == 200

    new = "Lubumbashi-2027-longer!"
    response = here.post(
        "/accounts/password/change/",
        {"oldpassword": PASSWORD, "password1": new, "password2": new},
    )
    assert response.status_code == 302

    for client in (here, elsewhere):
        response = client.get("/dashboard/test/")
        assert response.status_code == 302
        assert response.url.startswith("/accounts/login/")
    fresh = Client()
    sign_in(fresh, owner.user.email, password=new)
    assert fresh.get("/dashboard/test/").status_code == 200


def signed_out(client: Client) -> bool:
    response = client.get("/dashboard/test/")
    return response.status_code == 302 and response.url.startswith("/accounts/login/")


@pytest.mark.django_db
def test_two_factor_changes_end_the_other_sessions_of_the_person(shop, owner):
    """Turning two-factor on, new recovery codes, turning it off: each signs out every other
    browser of the person; the one that made the change stays, and other people's too."""
    teammate = signed_in(make_member(shop, "admin").user)
    here = Client()
    sign_in(here, owner.user.email)
    elsewhere = signed_in(owner.user)  # a phone at home

    _activate_totp(here)
    assert signed_out(elsewhere)
    assert here.get("/dashboard/test/").status_code == 200
    assert teammate.get("/dashboard/test/").status_code == 200

    changes = {  # the change → where allauth then sends the browser
        "/accounts/2fa/recovery-codes/generate/": "/accounts/2fa/recovery-codes/",
        "/accounts/2fa/totp/deactivate/": "/accounts/2fa/",
    }
    for change, done in changes.items():
        elsewhere = signed_in(owner.user)
        assert elsewhere.get("/dashboard/test/").status_code == 200
        with TestCase.captureOnCommitCallbacks(execute=True):  # allauth says so once committed
            response = here.post(change)
        assert (response.status_code, response.url) == (302, done)
        assert signed_out(elsewhere), change
        assert here.get("/dashboard/test/").status_code == 200, change
        assert teammate.get("/dashboard/test/").status_code == 200, change
    assert not owner.user.authenticator_set.exists()  # off, recovery codes gone with it


@pytest.mark.django_db
def test_the_session_cookie_is_httponly_lax_and_the_session_ends_after_its_age(owner):
    client = Client()
    response = sign_in(client, owner.user.email)
    session = response.cookies[settings.SESSION_COOKIE_NAME]
    assert session["httponly"] is True
    assert session["samesite"] == "Lax"
    assert client.cookies[settings.CSRF_COOKIE_NAME]["samesite"] == "Lax"
    switched = client.post("/i18n/setlang/", {"language": "en", "next": "/dashboard/test/"})
    language = switched.cookies[settings.LANGUAGE_COOKIE_NAME]
    assert (language.value, language["httponly"], language["samesite"]) == ("en", True, "Lax")

    assert settings.SESSION_COOKIE_AGE == 12 * 3600  # DASHBOARD_SESSION_AGE's default
    with time_machine.travel(timezone.now() + timedelta(hours=11, minutes=59)):
        assert client.get("/dashboard/test/").status_code == 200
    with time_machine.travel(timezone.now() + timedelta(hours=24, minutes=1)):
        response = client.get("/dashboard/test/")  # a day later
        live_counts = client.get(
            "/dashboard/test/payments/", HTTP_HX_REQUEST="true", HTTP_HX_TARGET="payments-results"
        )
    assert response.status_code == 302
    assert response.url.startswith("/accounts/login/")
    # htmx's request for a fragment takes the whole page to the sign-in.
    assert live_counts.status_code == 200
    assert live_counts["HX-Redirect"].startswith("/accounts/login/")


def test_cookies_are_secure_when_the_service_is_served_over_https():
    """As deployed: DEBUG off and an https PUBLIC_BASE_URL make the session's, CSRF's and the
    language switcher's cookies Secure."""
    environment = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": "a-test-secret-key-that-is-long-enough-0123456789",
        "PUBLIC_BASE_URL": "https://pay.example.cd",
        "DATABASE_URL": database_url_for_subprocess(),
        "REDIS_URL": settings.REDIS_URL or "redis://127.0.0.1:6379/0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    script = (
        "import json, django; django.setup(); from django.conf import settings as s; "
        "print(json.dumps([s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, "
        "s.SESSION_COOKIE_HTTPONLY, s.SESSION_COOKIE_SAMESITE, s.LANGUAGE_COOKIE_SECURE, "
        "s.LANGUAGE_COOKIE_HTTPONLY, s.LANGUAGE_COOKIE_SAMESITE]))"
    )
    output = (
        subprocess.run(
            [sys.executable, "-c", script],
            env=environment,
            cwd=settings.BASE_DIR,
            capture_output=True,
            text=True,
            check=True,
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    assert json.loads(output) == [True, True, True, "Lax", True, True, "Lax"]
