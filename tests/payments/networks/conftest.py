"""The networks' tests apply the limits a deployment gets by default (the suite's autouse fixture
lets every network take the API's whole range elsewhere)."""

import pytest

from config.settings import NETWORK_LIMITS_DEFAULT, parse_network_limits


@pytest.fixture
def default_limits(settings):
    settings.NETWORK_LIMITS = parse_network_limits(NETWORK_LIMITS_DEFAULT)
    return settings.NETWORK_LIMITS
