"""Fixtures of the live adapter tests: each fake provider runs on 127.0.0.1 and the settings point
the adapter at it. A fake's recorded violations fail the test unless the test consumed them."""

import pytest
from django.test import Client

from payments.providers import http
from tests.fakes.airtel import FakeAirtel
from tests.fakes.cybersource import FakeCyberSource
from tests.fakes.mpesa import FakeMpesa
from tests.fakes.orange import FakeOrange

ADAPTERS = {
    "AIRTEL_MONEY": "payments.providers.airtel.AirtelMoney",
    "VODACOM_MPESA": "payments.providers.mpesa.VodacomMpesa",
    "ORANGE_MONEY": "payments.providers.orange.OrangeMoney",
    "card": "payments.providers.cybersource.CyberSourceCard",
}


@pytest.fixture
def client() -> Client:
    """What an operator's or the card provider's server posts from: it sends no CSRF token, and
    Django checks for one here as it does in production."""
    return Client(enforce_csrf_checks=True)


@pytest.fixture(autouse=True)
def fresh_tokens():
    http.tokens.clear()
    yield
    http.tokens.clear()


@pytest.fixture
def live_merchant(merchant):
    merchant.live_approved = True
    merchant.save(update_fields=["live_approved"])
    return merchant


def _serve(fake, settings, rail: str):
    fake.start()
    settings.PAYMENT_PROVIDERS = {
        **settings.PAYMENT_PROVIDERS,
        "live": {**settings.PAYMENT_PROVIDERS["live"], rail: ADAPTERS[rail]},
    }
    settings.PROVIDER_HTTP_TIMEOUT = 5
    settings.PROVIDER_HTTP_RETRIES = 1
    return fake


def _finish(fake):
    fake.stop()
    assert fake.violations == [], f"the adapter broke the provider's rules: {fake.violations}"


@pytest.fixture
def airtel(settings, live_merchant):
    fake = _serve(FakeAirtel(), settings, "AIRTEL_MONEY")
    settings.AIRTEL_BASE_URL = fake.url
    settings.AIRTEL_CLIENT_ID = fake.client_id
    settings.AIRTEL_CLIENT_SECRET = fake.client_secret
    settings.AIRTEL_CALLBACK_HASH_KEY = fake.callback_hash_key
    yield fake
    _finish(fake)


@pytest.fixture
def mpesa(settings, live_merchant):
    fake = _serve(FakeMpesa(), settings, "VODACOM_MPESA")
    settings.MPESA_BASE_URL = fake.url
    settings.MPESA_PATH_PREFIX = "/openapi/ipg/v2/vodacomDRC"
    settings.MPESA_API_KEY = fake.api_key
    settings.MPESA_PUBLIC_KEY = fake.public_key
    settings.MPESA_SERVICE_PROVIDER_CODE = fake.shortcode
    settings.MPESA_ORIGIN = "*"
    settings.MPESA_TIMEOUT = 10
    settings.MPESA_SESSION_ACTIVATION = 1  # the fake's sessions become active after 0.3 s
    yield fake
    fake.released.set()
    _finish(fake)


@pytest.fixture
def orange(settings, live_merchant):
    fake = _serve(FakeOrange(), settings, "ORANGE_MONEY")
    settings.ORANGE_BASE_URL = fake.url
    settings.ORANGE_CLIENT_ID = fake.client_id
    settings.ORANGE_CLIENT_SECRET = fake.client_secret
    settings.ORANGE_POS_ID = fake.pos_id
    # The partner profile's notification header; the earlier notif_token form stays off.
    settings.ORANGE_CALLBACK_AUTHORIZATION = fake.callback_authorization
    settings.ORANGE_NOTIF_TOKEN = ""
    yield fake
    fake.released.set()
    _finish(fake)


@pytest.fixture
def cybersource(settings, live_merchant):
    fake = FakeCyberSource(
        secret_key="live-card-secret-key", access_key="live0access0key", profile_id="LIVE-PROF"
    )
    _serve(fake, settings, "card")
    settings.CARD_LIVE_ACCESS_KEY = fake.access_key
    settings.CARD_LIVE_PROFILE_ID = fake.profile_id
    settings.CARD_LIVE_SECRET_KEY = fake.secret_key
    settings.CARD_PROVIDER_URL = "https://secureacceptance.cybersource.com/pay"
    settings.CARD_REST_BASE_URL = fake.url
    settings.CARD_MERCHANT_ID = fake.merchant_id
    settings.CARD_REST_KEY_ID = fake.key_id
    settings.CARD_REST_SHARED_SECRET = fake.shared_secret
    yield fake
    _finish(fake)
