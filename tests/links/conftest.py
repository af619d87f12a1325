import pytest


@pytest.fixture(autouse=True)
def _link_throttle_out_of_the_way(settings):
    """Every test client calls from 127.0.0.1: the per-address throttle of the links' pages is
    set out of reach here; test_page.py sets it low on purpose."""
    settings.THROTTLE_PAYMENT_LINK_SESSIONS = "1000000/s"
