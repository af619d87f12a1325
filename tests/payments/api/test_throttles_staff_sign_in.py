"""Staff sign-in failures (django-axes, payments/admin/login.py): THROTTLE_ADMIN_LOGIN wrong
passwords for one username from one address lock that pair out, however many are sent at once;
the address axes sees is the one the API's throttles see (THROTTLE_TRUSTED_PROXIES)."""

import random
import runpy
import threading

import pytest
from axes.helpers import get_client_ip_address
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.test import Client, RequestFactory

from core import throttles
from tests.helpers import race


@pytest.fixture
def address() -> str:
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


def sign_in(client: Client, address: str, password: str, username: str = "staff"):
    return client.post(
        "/admin/login/?next=/admin/",
        {"username": username, "password": password},
        REMOTE_ADDR=address,
    )


@pytest.mark.django_db
def test_staff_sign_in_is_paused_after_failed_passwords(
    settings, client, django_user_model, address
):
    settings.AXES_FAILURE_LIMIT = 3
    django_user_model.objects.create_superuser("staff", "staff@example.cd", "right-password-9")
    django_user_model.objects.create_superuser("other", "other@example.cd", "right-password-8")
    for _ in range(2):
        page = sign_in(client, address, "wrong")
        assert page.status_code == 200  # the form again, with its error
    page = sign_in(client, address, "wrong")  # the third: locked from now on
    assert page.status_code == 429 and int(page["Retry-After"]) == 3600
    assert "Trop de tentatives" in page.text  # the pause page, in the staff's language

    page = sign_in(client, address, "right-password-9")  # even the right password
    assert page.status_code == 429 and int(page["Retry-After"]) >= 1
    assert "_auth_user_id" not in client.session

    # Another staff member at the same address, and the same one from elsewhere, sign in.
    assert sign_in(Client(), address, "right-password-8", "other").status_code == 302
    elsewhere = Client()
    assert sign_in(elsewhere, "192.0.2.78", "right-password-9").status_code == 302
    assert "_auth_user_id" in elsewhere.session
    # The sign-in page itself still shows.
    assert client.get("/admin/login/", REMOTE_ADDR=address).status_code == 200


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
def test_thirty_wrong_passwords_at_once_check_no_more_than_the_limit(
    settings, django_user_model, address
):
    settings.PASSWORD_HASHERS = [f"{__name__}.CountingHasher"]
    settings.AXES_FAILURE_LIMIT = 10
    django_user_model.objects.create_superuser("staff", "staff@example.cd", "right-password-9")
    checked.clear()

    statuses = race(lambda: sign_in(Client(), address, "wrong").status_code, count=30)

    assert len(checked) == 10  # the others never reached the password
    assert sorted(statuses) == [200] * 9 + [429] * 21  # the tenth failure locks
    page = sign_in(Client(), address, "right-password-9")
    assert page.status_code == 429 and len(checked) == 10


def configured_settings() -> dict:
    """config/settings.py as it reads the environment now."""
    from django.conf import settings

    return runpy.run_path(str(settings.BASE_DIR / "config" / "settings.py"))


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
        request = RequestFactory().post("/admin/login/", **meta)
        if proxies > 1 and "," not in meta.get("HTTP_X_FORWARDED_FOR", ""):
            continue  # a chain shorter than the proxies in front: no proxy of ours sent it
        assert get_client_ip_address(request) == throttles.client_address(request), meta


def test_the_lockout_is_read_from_throttle_admin_login(monkeypatch):
    monkeypatch.setenv("THROTTLE_ADMIN_LOGIN", "7/m")
    configured = configured_settings()
    assert configured["AXES_FAILURE_LIMIT"] == 7
    assert configured["AXES_COOLOFF_TIME"] * 3600 == pytest.approx(60)
    assert configured["AXES_LOCKOUT_PARAMETERS"] == [["username", "ip_address"]]
    assert configured["AXES_HANDLER"] == "axes.handlers.database.AxesDatabaseHandler"
