import pytest

from payments.providers import http
from tests.fakes.sms import FakeAfricasTalking, FakeOrangeSms, FakeTwilio


def _finish(fake):
    fake.stop()
    assert fake.violations == [], f"the adapter broke the vendor's rules: {fake.violations}"


@pytest.fixture(autouse=True)
def _fresh_tokens():
    http.tokens.clear()
    yield
    http.tokens.clear()


@pytest.fixture
def public_address(settings):
    settings.PUBLIC_BASE_URL = "https://pay.example.cd"
    return settings.PUBLIC_BASE_URL


@pytest.fixture
def orange_sms(settings, public_address):
    fake = FakeOrangeSms()
    fake.start()
    settings.SMS_PROVIDER = "orange"
    settings.ORANGE_SMS_BASE_URL = fake.url
    settings.ORANGE_SMS_CLIENT_ID = fake.client_id
    settings.ORANGE_SMS_CLIENT_SECRET = fake.client_secret
    settings.ORANGE_SMS_SENDER_ADDRESS = fake.sender_address
    settings.ORANGE_SMS_CALLBACK_TOKEN = "orange-dr-word"
    settings.PROVIDER_HTTP_TIMEOUT = 2
    yield fake
    _finish(fake)


@pytest.fixture
def twilio(settings, public_address):
    fake = FakeTwilio()
    fake.start()
    settings.SMS_PROVIDER = "twilio"
    settings.TWILIO_BASE_URL = fake.url
    settings.TWILIO_ACCOUNT_SID = fake.account_sid
    settings.TWILIO_AUTH_TOKEN = fake.auth_token
    settings.TWILIO_FROM = fake.from_
    settings.PROVIDER_HTTP_TIMEOUT = 2
    yield fake
    _finish(fake)


@pytest.fixture
def africastalking(settings, public_address):
    fake = FakeAfricasTalking()
    fake.start()
    settings.SMS_PROVIDER = "africastalking"
    settings.AFRICASTALKING_BASE_URL = fake.url
    settings.AFRICASTALKING_USERNAME = fake.username
    settings.AFRICASTALKING_API_KEY = fake.api_key
    settings.AFRICASTALKING_SENDER_ID = "CONGOPAY"
    settings.AFRICASTALKING_CALLBACK_TOKEN = "at-dr-word"
    settings.PROVIDER_HTTP_TIMEOUT = 2
    yield fake
    _finish(fake)
