"""The dashboard's fixtures: people with verified addresses, merchants, memberships, a client
signed in as one of them, and a local SMTP sink for the mail that really goes out."""

from email import message_from_bytes
from email.policy import default as default_policy

import pytest
from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.test import Client

from dashboard.models import Membership, MerchantSettings
from tests.factories import merchant_with_keys
from tests.helpers import free_port, totp_code  # noqa: F401 (imported from here too)

PASSWORD = "Kinshasa-2026-long!"


@pytest.fixture(autouse=True)
def _allauth_rate_limits_off(settings):
    """allauth's own rate limits (per address and per account) live in the cache that outlives a
    test, and every test client signs in from 127.0.0.1: off here; test_accounts.py's lockout
    test counts axes' lockout instead."""
    settings.ACCOUNT_RATE_LIMITS = False


def make_user(email: str, *, verified: bool = True, password: str = PASSWORD):
    user = get_user_model().objects.create_user(
        username=email.split("@")[0][:30] + email[-6:], email=email, password=password
    )
    EmailAddress.objects.create(user=user, email=email, verified=verified, primary=True)
    return user


def make_member(merchant, role: str, email: str | None = None):
    user = make_user(email or f"{role}-{merchant.pk[-6:].lower()}@example.com")
    return Membership.objects.create(user=user, merchant=merchant, role=role)


def signed_in(user) -> Client:
    client = Client(enforce_csrf_checks=False)
    client.force_login(user, backend="allauth.account.auth_backends.AuthenticationBackend")
    return client


@pytest.fixture
def shop(db):
    """A merchant (test mode) with its team settings."""
    merchant = merchant_with_keys(name="Boutique Gombe").merchant
    MerchantSettings.objects.create(merchant=merchant)
    return merchant


@pytest.fixture
def other_shop(db):
    merchant = merchant_with_keys(name="Pharmacie Limete").merchant
    MerchantSettings.objects.create(merchant=merchant)
    return merchant


@pytest.fixture
def owner(shop):
    return make_member(shop, "owner")


class Sink:
    """aiosmtpd's handler: the messages received, parsed."""

    def __init__(self):
        self.messages = []

    async def handle_DATA(self, server, session, envelope):  # noqa: N802 (aiosmtpd's name)
        self.messages.append(message_from_bytes(envelope.content, policy=default_policy))
        return "250 OK"


@pytest.fixture
def smtp_sink(settings):
    """A real SMTP server on 127.0.0.1 that the service mails through (EMAIL_URL smtp://…)."""
    import environ
    from aiosmtpd.controller import Controller

    port = free_port()
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    for name, value in environ.Env.email_url_config(f"smtp://127.0.0.1:{port}").items():
        setattr(settings, name, value)
    yield sink
    controller.stop()


def body_of(message) -> str:
    part = message.get_body(preferencelist=("plain",))
    return part.get_content()
