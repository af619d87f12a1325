"""Settings defaults, OpenAPI, the admin (health: test_liveness_readiness.py)."""

import os
import re
import subprocess
import sys

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from payments.models import ApiKey
from tests.factories import with_totp

ROOT = settings.BASE_DIR
# What tests/env.py sets for the test suite only: a default is a default without it.
TEST_ONLY_ENV = {"WEBHOOK_ALLOW_PRIVATE_NETWORKS", "STATIC_MANIFEST"}


def settings_in_subprocess(env: dict, expr: str) -> str:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY"} | TEST_ONLY_ENV
    }
    # SQLite and the embedded broker, as these tests' settings are read, on purpose.
    clean.update({"EMBEDDED": "true", **env}, DJANGO_SETTINGS_MODULE="config.settings")
    code = f"import django; django.setup(); from django.conf import settings as s; print({expr})"
    result = subprocess.run(
        [sys.executable, "-c", code], env=clean, cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def run_settings(env: dict) -> subprocess.CompletedProcess:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "REDIS_URL", "DEBUG", "SECRET_KEY", "SANDBOX_CARD_SECRET_KEY"}
    }
    # SQLite and the embedded broker, as these tests' settings are read, on purpose.
    clean.update({"EMBEDDED": "true", **env}, DJANGO_SETTINGS_MODULE="config.settings")
    code = "import django; django.setup()"
    return subprocess.run(
        [sys.executable, "-c", code], env=clean, cwd=ROOT, capture_output=True, text=True
    )


def test_debug_is_off_unless_asked_and_then_secrets_must_be_real(tmp_path):
    out = settings_in_subprocess(
        {"VAR_DIR": str(tmp_path), "SECRET_KEY": "s" * 50, "SANDBOX_CARD_SECRET_KEY": "c" * 40},
        "s.DEBUG, s.WEBHOOK_ALLOW_PRIVATE_NETWORKS",
    )
    assert out == "False False"
    refused = run_settings({"VAR_DIR": str(tmp_path)})
    assert refused.returncode != 0 and "SECRET_KEY must be set" in refused.stderr
    refused = run_settings({"VAR_DIR": str(tmp_path), "SECRET_KEY": "s" * 50})
    assert refused.returncode != 0
    assert "SANDBOX_CARD_SECRET_KEY is the public development default" in refused.stderr
    no_sandbox_card = run_settings(
        {"VAR_DIR": str(tmp_path), "SECRET_KEY": "s" * 50, "SANDBOX_CARD_ENABLED": "false"}
    )
    assert no_sandbox_card.returncode == 0, no_sandbox_card.stderr


def test_settings_defaults_are_the_embedded_setup(tmp_path):
    out = settings_in_subprocess(
        {"VAR_DIR": str(tmp_path), "DEBUG": "true"},  # as `make run` starts it
        "s.DATABASES['default']['ENGINE'], s.CELERY_BROKER_URL, s.PUBLIC_BASE_URL, "
        "s.SANDBOX_MOBILE_MONEY_DELAY, s.MOBILE_MONEY_PROMPT_TIMEOUT, s.CARD_PAYMENT_TIMEOUT, "
        "s.WEBHOOK_RETRY_SCHEDULE",
    )
    assert "django.db.backends.sqlite3" in out
    assert f"sqla+sqlite:///{tmp_path}/broker.sqlite3" in out
    assert out.endswith(
        "http://127.0.0.1:8000 3 300 3600 [5, 300, 1800, 7200, 18000, 36000, 36000]"
    )


def test_settings_follow_the_environment(tmp_path):
    out = settings_in_subprocess(
        {
            "VAR_DIR": str(tmp_path),
            "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x",
            "REDIS_URL": "redis://127.0.0.1:6379/3",
            "WEBHOOK_RETRY_SCHEDULE": "1,2,3",
            "PUBLIC_BASE_URL": "https://pay.example.cd/",
            "DEBUG": "true",
        },
        "s.DATABASES['default']['ENGINE'], s.CELERY_BROKER_URL, s.WEBHOOK_RETRY_SCHEDULE, s.PUBLIC_BASE_URL",
    )
    assert (
        out
        == "django.db.backends.postgresql redis://127.0.0.1:6379/3 [1, 2, 3] https://pay.example.cd"
    )


def test_production_requires_secret_key_and_is_hardened(tmp_path):
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY"}}
    clean.update(DEBUG="false", VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="config.settings")
    failed = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=clean,
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert failed.returncode != 0 and "SECRET_KEY must be set" in failed.stderr
    out = settings_in_subprocess(
        {
            "DEBUG": "false",
            "SECRET_KEY": "x" * 50,
            "VAR_DIR": str(tmp_path),
            "PUBLIC_BASE_URL": "https://pay.example.cd",
        },
        "s.ALLOWED_HOSTS, s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS",
    )
    assert out == "['pay.example.cd'] True True 31536000"


@pytest.mark.django_db
def test_openapi_is_served_and_lists_the_api(api):
    response = api.get("/v1/openapi.json")
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert "/v1/webhook_endpoint" in schema["paths"]
    assert APIClient().get("/v1/docs").status_code == 200


@pytest.mark.django_db
def test_admin_lists_merchants_and_issues_a_key_shown_once(client, django_user_model, merchant):
    staff = with_totp(
        django_user_model.objects.create_superuser("staff", "staff@example.cd", "pw-123-long")
    )
    client.force_login(staff)
    assert merchant.name in client.get("/admin/payments/merchant/").content.decode()
    before = ApiKey.objects.filter(merchant=merchant, mode="live").count()
    response = client.post(
        "/admin/payments/merchant/",
        {"action": "issue_live_key", "_selected_action": [merchant.pk]},
    )
    assert response.status_code == 200  # the key is on this page, not behind a redirect
    page = response.content.decode()
    assert ApiKey.objects.filter(merchant=merchant, mode="live").count() == before + 1
    [plaintext] = re.findall(r"<code data-key>(sk_live_[A-Za-z0-9]+)</code>", page)
    assert "elle n’est montrée qu’une fois, sur cette page" in page  # the staff's language
    assert response["Cache-Control"] == "max-age=0, no-cache, no-store, must-revalidate, private"
    # Never in a cookie (Django keeps messages in one), nor on the next page.
    assert all(plaintext not in morsel.value for morsel in response.cookies.values())
    assert all(plaintext not in morsel.value for morsel in client.cookies.values())
    assert plaintext not in client.get("/admin/payments/merchant/").content.decode()
    key_page = client.get(
        f"/admin/payments/apikey/{ApiKey.objects.first().pk}/change/"
    ).content.decode()
    assert ApiKey.objects.first().key_hash not in key_page


@pytest.mark.django_db
def test_the_system_checks_find_nothing_on_this_database():
    """`make run` (SQLite) and production (PostgreSQL) start without a warning: what a check would
    say on one database and not matter there is silenced in the settings, with its reason."""
    from django.core import checks

    found = [m for m in checks.run_checks(databases=["default"]) if not m.is_silenced()]
    assert found == []
