"""Persistent connections are health-checked (`SELECT 1`) before a request's first query only
when they have been idle for DB_HEALTH_CHECK_AFTER seconds or more (config/database.py). A
connection the server closed stands for one that died while idle (a restart, a proxy)."""

import pytest
from django.db import Error, connection

from tests.helpers import killed_by_the_server, next_request

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _fresh_connection():
    """A connection opened now: one opened earlier in the test run may be past CONN_MAX_AGE,
    and Django closes such a connection at the end of a request, whatever its last use."""
    connection.close()


def query() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        return cursor.fetchone()[0]


def test_an_idle_connection_is_checked_and_replaced_when_dead(settings):
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    query()
    killed_by_the_server()
    connection.used_at -= settings.DB_HEALTH_CHECK_AFTER + 1  # idle since
    next_request()
    assert query() == 1  # the check found it dead: a new connection answered


def test_a_connection_used_moments_ago_is_not_checked(settings):
    query()
    killed_by_the_server()  # within the second: the price of skipping the check
    next_request()
    with pytest.raises(Error):
        query()
    next_request()  # Django closes the connection that failed…
    assert query() == 1  # …and the next request gets a new one


def test_with_zero_every_request_is_checked(settings):
    settings.DB_HEALTH_CHECK_AFTER = 0
    query()
    killed_by_the_server()
    next_request()
    assert query() == 1
