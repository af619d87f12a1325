"""The money pages' fixtures: a merchant with one member of each role, another merchant, and
clients signed in as each of them."""

import pytest
from django.test import Client

from dashboard.models import MerchantSettings
from tests.dashboard.conftest import make_member, signed_in
from tests.factories import merchant_with_keys

ROLES = ("owner", "admin", "developer", "finance", "support", "viewer")


def member(merchant, role: str, email: str | None = None):
    """A user of `merchant` with `role` (an address of their own per merchant and role)."""
    return make_member(merchant, role, email).user


def client_of(user) -> Client:
    return signed_in(user)


@pytest.fixture
def shop_keys(db):
    """The merchant of the pages, as made (its keys' plaintexts for the API's answers)."""
    made = merchant_with_keys(name="Boutique Gombe")
    MerchantSettings.objects.create(merchant=made.merchant)
    return made


@pytest.fixture
def shop(shop_keys):
    return shop_keys.merchant


@pytest.fixture(autouse=True)
def _quick_passwords(settings):
    """The members' passwords are hashed with a fast hasher here: these tests are about the
    pages, and a member per role would otherwise cost seconds of key stretching each."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


class Members(dict):
    """A signed-in client per role of a merchant, each made on first use."""

    def __init__(self, merchant):
        super().__init__()
        self.merchant = merchant

    def __missing__(self, role: str) -> Client:
        self[role] = client_of(member(self.merchant, role))
        return self[role]


@pytest.fixture
def clients(shop) -> Members:
    return Members(shop)


@pytest.fixture
def owner(clients) -> Client:
    return clients["owner"]
