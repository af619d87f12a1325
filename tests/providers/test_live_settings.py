"""Which live networks are offered depends on configured credentials; test mode never uses them."""

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings as django_settings

pytestmark = pytest.mark.django_db

PRINT_LIVE = (
    "import django, json; django.setup(); from django.conf import settings; "
    "print(json.dumps(settings.PAYMENT_PROVIDERS['live']))"
)
CREDENTIALS = [
    "AIRTEL_CLIENT_ID", "AIRTEL_CLIENT_SECRET", "MPESA_API_KEY", "MPESA_PUBLIC_KEY",
    "MPESA_SERVICE_PROVIDER_CODE", "ORANGE_CLIENT_ID", "ORANGE_CLIENT_SECRET", "ORANGE_POS_ID",
    "CARD_LIVE_ACCESS_KEY", "CARD_LIVE_PROFILE_ID", "CARD_LIVE_SECRET_KEY", "CARD_MERCHANT_ID",
    "CARD_REST_KEY_ID", "CARD_REST_SHARED_SECRET", "AIRTEL_CALLBACK_HASH_KEY",
]  # fmt: skip
AIRTEL = {"AIRTEL_CLIENT_ID": "id", "AIRTEL_CLIENT_SECRET": "s", "AIRTEL_CALLBACK_HASH_KEY": "k"}


def start(**env) -> subprocess.CompletedProcess:
    """Django's start-up in a fresh process with these settings and no other credentials."""
    clean = {k: v for k, v in os.environ.items() if k not in CREDENTIALS}
    return subprocess.run(
        [sys.executable, "-c", PRINT_LIVE],
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        cwd=django_settings.BASE_DIR,
        capture_output=True,
        text=True,
    )


def live_providers(**env) -> dict:
    result = start(**env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_a_network_is_offered_live_only_with_all_its_credentials():
    assert live_providers() == {}
    assert live_providers(AIRTEL_CLIENT_ID="id") == {}
    assert live_providers(**AIRTEL) == {"AIRTEL_MONEY": "payments.providers.airtel.AirtelMoney"}
    assert set(
        live_providers(ORANGE_CLIENT_ID="i", ORANGE_CLIENT_SECRET="s", ORANGE_POS_ID="p")
    ) == {"ORANGE_MONEY"}


def test_live_airtel_does_not_start_without_its_callback_key():
    """Without the key of Airtel's callback hash anyone could post a callback naming any live
    charge: the service refuses to start, and says which setting is missing."""
    result = start(**{**AIRTEL, "AIRTEL_CALLBACK_HASH_KEY": ""})
    assert result.returncode != 0 and result.stdout == ""
    assert "ImproperlyConfigured" in result.stderr
    assert "AIRTEL_MONEY is configured for live mode" in result.stderr
    assert "AIRTEL_CALLBACK_HASH_KEY is not set" in result.stderr
    # Without Airtel's credentials the key is not needed: Airtel is simply not offered.
    assert live_providers(AIRTEL_CLIENT_ID="id") == {}


def test_a_network_without_credentials_answers_provider_unavailable(airtel, live_api):
    response = live_api.post(
        "/v1/charges",
        {"amount": 1000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"},
        format="json",
    )
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "provider_unavailable" and error["type"] == "api_error"
    assert "live mode" in error["message"]
    card = live_api.post(
        "/v1/charges", {"amount": 1000, "currency": "USD", "payment_method": "card"}, format="json"
    )
    assert card.status_code == 503 and card.json()["error"]["code"] == "provider_unavailable"


def test_test_mode_never_reaches_the_live_adapters(airtel, api):
    from payments.services import charges

    response = api.post(
        "/v1/charges",
        {"amount": 1000, "currency": "CDF", "phone": "+243971234567", "network": "AIRTEL_MONEY"},
        format="json",
    )
    charges.charge_request_payment(charge_id=response.json()["id"])
    charges.charge_refresh(charge_id=response.json()["id"])
    assert airtel.log == []
