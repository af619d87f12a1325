"""Shared fixtures. Real databases, real broker: nothing of our own is mocked.

Tests that need PostgreSQL, Redis or Chromium skip when those are absent on a developer machine,
but in CI (CI=true or REQUIRE_REAL_SERVICES=1) a missing one fails the run instead.
"""

import os
import shutil

import pytest
from django.conf import settings
from django.db import connection
from rest_framework.test import APIClient

from tests.factories import merchant_with_keys

STRICT = (
    os.environ.get("CI", "").lower() in ("1", "true", "yes")
    or os.environ.get("REQUIRE_REAL_SERVICES") == "1"
)


def _unavailable(reason: str):
    if STRICT:
        pytest.fail(f"required in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def pytest_runtest_setup(item):
    if item.get_closest_marker("postgres") and not settings.DATABASES["default"]["ENGINE"].endswith(
        "postgresql"
    ):
        _unavailable("needs PostgreSQL (set DATABASE_URL=postgres://...)")
    if item.get_closest_marker("redis") and not settings.REDIS_URL:
        _unavailable("needs Redis (set REDIS_URL=redis://...)")
    if item.get_closest_marker("browser") and not shutil.which("chromium"):
        _unavailable("needs Debian's chromium (/usr/bin/chromium)")


@pytest.fixture
def is_postgres() -> bool:
    return connection.vendor == "postgresql"


@pytest.fixture
def merchant_keys(db):
    return merchant_with_keys()


@pytest.fixture
def merchant(merchant_keys):
    return merchant_keys.merchant


@pytest.fixture
def api(merchant_keys) -> APIClient:
    """A client authenticated with the merchant's test key."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {merchant_keys.test_key.plaintext}")
    return client


@pytest.fixture
def live_api(merchant_keys) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {merchant_keys.live_key.plaintext}")
    return client


@pytest.fixture
def anon() -> APIClient:
    return APIClient()
