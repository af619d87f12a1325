"""createmerchant / createapikey / revokeapikey / demomerchant."""

import json
import os
import subprocess
import sys
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from payments.models import ApiKey, Merchant
from tests.helpers import database_url_for_subprocess
from webhooks.services import endpoint_get

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_createmerchant_json_contract_and_keys_authenticate():
    out = run(
        "createmerchant",
        "--name",
        "Pharmacie Lumumba",
        "--webhook-url",
        "https://m.example/hook",
        "--json",
    )
    data = json.loads(out)
    assert set(data) == {
        "id",
        "name",
        "test_secret_key",
        "live_secret_key",
        "webhook_secret",
        "test_webhook_secret",
        "live_webhook_secret",
    }
    assert data["id"].startswith("mer_") and len(data["id"]) == 28
    assert data["name"] == "Pharmacie Lumumba"
    assert data["test_secret_key"].startswith("sk_test_")
    assert data["live_secret_key"].startswith("sk_live_")
    assert data["webhook_secret"].startswith("whsec_")
    assert data["webhook_secret"] == data["test_webhook_secret"] != data["live_webhook_secret"]
    merchant = Merchant.objects.get(pk=data["id"])
    for livemode, secret in (
        (False, data["test_webhook_secret"]),
        (True, data["live_webhook_secret"]),
    ):
        endpoint = endpoint_get(merchant=merchant, livemode=livemode)
        assert (endpoint.url, endpoint.secret) == ("https://m.example/hook", secret)
    assert merchant.card_rail_enabled is True and merchant.live_approved is False
    for key in (data["test_secret_key"], data["live_secret_key"]):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
        response = client.get("/v1/webhook_endpoint")
        assert response.status_code == 200
        assert response.json()["url"] == "https://m.example/hook"


def test_createmerchant_flags():
    data = json.loads(
        run("createmerchant", "--name", "X", "--live-approved", "--no-card-rail", "--json")
    )
    merchant = Merchant.objects.get(pk=data["id"])
    assert merchant.live_approved is True and merchant.card_rail_enabled is False


def test_createmerchant_refuses_bad_webhook_url():
    with pytest.raises(CommandError, match="--webhook-url is not an http"):
        run("createmerchant", "--name", "X", "--webhook-url", "not a url", "--json")
    assert not Merchant.objects.exists()


def test_createapikey_and_revokeapikey():
    data = json.loads(run("createmerchant", "--name", "X", "--json"))
    new = json.loads(run("createapikey", "--merchant", data["id"], "--mode", "live", "--json"))
    assert new["secret_key"].startswith("sk_live_")
    assert ApiKey.objects.filter(merchant_id=data["id"], mode="live").count() == 2
    run("revokeapikey", "--key", new["secret_key"])
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {new['secret_key']}")
    assert client.get("/v1/webhook_endpoint").json()["error"]["code"] == "invalid_api_key"


def test_demomerchant_is_created_once(settings, tmp_path):
    settings.VAR_DIR = tmp_path
    first = run("demomerchant")
    second = run("demomerchant")
    assert Merchant.objects.count() == 1
    key = next(word for word in first.split() if word.startswith("sk_test_"))
    assert key in second
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/v1/webhook_endpoint").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_the_commands_speak_one_language_djangos_createsuperuser_too():
    """manage.py's commands are English throughout, although LANGUAGE_CODE is French: Django's
    createsuperuser writes English sentences around its field names and validation messages."""
    env = {
        **os.environ,
        "DEBUG": "true",
        "DATABASE_URL": database_url_for_subprocess(),
        "DJANGO_SUPERUSER_PASSWORD": "a-long-staff-password-42",
    }
    manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
    create = [*manage, "createsuperuser", "--noinput", "--username", "admin", "--email", "a@b.cd"]
    first = subprocess.run(create, env=env, capture_output=True, text=True, timeout=120)
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "Superuser created successfully."
    again = subprocess.run(create, env=env, capture_output=True, text=True, timeout=120)
    assert again.returncode == 1
    assert "Error: That username is already taken." in again.stderr, again.stderr
