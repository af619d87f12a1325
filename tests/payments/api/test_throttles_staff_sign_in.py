"""Failed sign-ins (django-axes, dashboard/signin.py): THROTTLE_STAFF_SIGN_IN wrong passwords
for one staff account, from any addresses, lock that account out, however many are sent at once;
the address axes sees is the one the API's throttles see (THROTTLE_TRUSTED_PROXIES)."""

import importlib
import random
import sys
import threading
from datetime import timedelta

import pytest
from axes.helpers import get_client_ip_address
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.core.exceptions import ImproperlyConfigured
from django.test import Client, RequestFactory

from core import throttles
from dashboard import signin
from tests.helpers import race


@pytest.fixture(autouse=True)
def _axes_alone(settings):
    """allauth's own limits (five failures per account in five minutes) would refuse before
    axes' here: these tests count axes'."""
    settings.ACCOUNT_RATE_LIMITS = False


def address() -> str:
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


def sign_in(client: Client, address: str, password: str, email: str = "staff@example.cd"):
    return client.post(
        "/accounts/login/?next=/admin/",
        {"login": email, "password": password},
        REMOTE_ADDR=address,
    )


@pytest.mark.django_db
def test_staff_sign_in_is_paused_after_failed_passwords(settings, client, django_user_model):
    settings.THROTTLE_STAFF_SIGN_IN = "3/h"
    django_user_model.objects.create_superuser("staff", "staff@example.cd", "right-password-9")
    django_user_model.objects.create_superuser("other", "other@example.cd", "right-password-8")
    for _ in range(2):
        page = sign_in(client, address(), "wrong")
        assert page.status_code == 200  # the form again, with its error
    page = sign_in(client, address(), "wrong")  # the third: locked from now on
    assert page.status_code == 429 and int(page["Retry-After"]) == 3600
    assert "Trop de tentatives" in page.text  # the pause page, in the staff's language

    page = sign_in(client, address(), "right-password-9")  # even the right password
    assert page.status_code == 429 and int(page["Retry-After"]) >= 1
    assert "_auth_user_id" not in client.session

    # Another staff member at the same address signs in; the same one from elsewhere does not.
    assert (
        sign_in(Client(), "192.0.2.77", "right-password-8", "other@example.cd").status_code == 302
    )
    elsewhere = Client()
    assert sign_in(elsewhere, "192.0.2.78", "right-password-9").status_code == 429
    assert "_auth_user_id" not in elsewhere.session
    # The sign-in page itself still shows.
    assert client.get("/accounts/login/", REMOTE_ADDR=address()).status_code == 200


checked = []
checked_lock = threading.Lock()


class CountingHasher(PBKDF2PasswordHasher):
    """Django's PBKDF2 hasher, counting the passwords it checks."""

    iterations = 200_000

    def verify(self, password, encoded):
        with checked_lock:
            checked.append(password)
        return super().verify(password, encoded)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_thirty_wrong_passwords_at_once_check_no_more_than_the_limit(settings, django_user_model):
    """From thirty addresses at once: the staff account's sign-ins are taken one at a time."""
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    settings.THROTTLE_STAFF_SIGN_IN = "10/h"
    django_user_model.objects.create_superuser("staff", "staff@example.cd", "right-password-9")
    checked.clear()

    statuses = race(lambda: sign_in(Client(), address(), "wrong").status_code, count=30)

    assert len(checked) == 10  # the others never reached the password
    assert sorted(statuses) == [200] * 9 + [429] * 21  # the tenth failure locks
    page = sign_in(Client(), address(), "right-password-9")
    assert page.status_code == 429 and len(checked) == 10


def configured_settings() -> dict:
    """The settings package (config/settings/) as it reads the environment now: read afresh,
    while the modules the suite runs on stay as they are."""
    import config

    def ours(name: str) -> bool:
        return name == "config.settings" or name.startswith("config.settings.")

    kept = {name: module for name, module in sys.modules.items() if ours(name)}
    for name in kept:
        del sys.modules[name]
    try:
        return dict(vars(importlib.import_module("config.settings")))
    finally:
        for name in [name for name in sys.modules if ours(name)]:
            del sys.modules[name]
        sys.modules.update(kept)
        config.settings = kept["config.settings"]


FORWARDED = [
    {"REMOTE_ADDR": "10.9.9.9"},
    {"REMOTE_ADDR": "10.9.9.9", "HTTP_X_FORWARDED_FOR": "41.243.1.2"},
    {"REMOTE_ADDR": "10.9.9.9", "HTTP_X_FORWARDED_FOR": "1.2.3.4, 41.243.1.2"},
    {"REMOTE_ADDR": "10.9.9.9", "HTTP_X_FORWARDED_FOR": "1.2.3.4, 41.243.1.2, 10.0.0.7"},
    {"REMOTE_ADDR": "10.9.9.9", "HTTP_X_FORWARDED_FOR": "192.168.1.20, 10.0.0.7"},
]


@pytest.mark.parametrize("proxies", [0, 1, 2])
def test_axes_sees_the_address_the_throttles_see(settings, monkeypatch, proxies):
    monkeypatch.setenv("THROTTLE_TRUSTED_PROXIES", str(proxies))
    configured = configured_settings()
    for name in (
        "THROTTLE_TRUSTED_PROXIES",
        "AXES_IPWARE_PROXY_ORDER",
        "AXES_IPWARE_PROXY_COUNT",
        "AXES_IPWARE_META_PRECEDENCE_ORDER",
        "IPWARE_STRICT",
    ):
        setattr(settings, name, configured[name])
    for meta in FORWARDED:
        request = RequestFactory().post("/accounts/login/", **meta)
        if proxies > 1 and "," not in meta.get("HTTP_X_FORWARDED_FOR", ""):
            continue  # a chain shorter than the proxies in front: no proxy of ours sent it
        assert get_client_ip_address(request) == throttles.client_address(request), meta


@pytest.mark.django_db
def test_the_lockouts_are_read_from_their_settings(monkeypatch, settings, django_user_model):
    monkeypatch.setenv("THROTTLE_ADMIN_LOGIN", "7/m")
    monkeypatch.setenv("THROTTLE_STAFF_SIGN_IN", "4/d")
    configured = configured_settings()
    for name in ("THROTTLE_ADMIN_LOGIN", "THROTTLE_STAFF_SIGN_IN"):
        setattr(settings, name, configured[name])
    assert configured["AXES_HANDLER"] == "axes.handlers.database.AxesDatabaseHandler"
    django_user_model.objects.create_superuser("staff", "Staff@example.cd", "right-password-9")
    staff = RequestFactory().post("/accounts/login/", {"login": "STAFF@example.cd"})
    member = RequestFactory().post("/accounts/login/", {"login": "kin@example.cd"})
    assert signin.lockout_parameters(staff) == ["username"]
    assert signin.failure_limit(staff) == 4
    assert signin.cool_off(staff) == timedelta(days=1)
    assert signin.lockout_parameters(member) == [["username", "ip_address"]]
    assert signin.failure_limit(member) == 7
    assert signin.cool_off(member) == timedelta(minutes=1)

    monkeypatch.setenv("THROTTLE_STAFF_SIGN_IN", "20 an hour")
    with pytest.raises(ImproperlyConfigured, match="THROTTLE_STAFF_SIGN_IN"):
        configured_settings()
