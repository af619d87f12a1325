"""Persistent connections are health-checked (`SELECT 1`) before a request's first query only
when they have been idle for DB_HEALTH_CHECK_AFTER seconds or more (config/database.py)."""

import pytest
from django.core.signals import request_finished, request_started
from django.db import connection

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture(autouse=True)
def _fresh_connection():
    """A connection opened now: one opened earlier in the test run may be past CONN_MAX_AGE,
    and Django closes such a connection at the end of a request, whatever its last use."""
    connection.close()


def next_request() -> None:
    """What Django does between two requests on this thread."""
    request_finished.send(sender=None)
    request_started.send(sender=None)


def query() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")


def test_a_connection_used_moments_ago_is_not_checked_again(settings):
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    query()
    next_request()
    assert connection.health_check_done  # used just now: no SELECT 1 first

    connection.used_at -= settings.DB_HEALTH_CHECK_AFTER + 1
    next_request()
    assert not connection.health_check_done  # idle: checked before its first query
    query()
    assert connection.health_check_done


def test_every_request_is_checked_with_zero(settings):
    settings.DB_HEALTH_CHECK_AFTER = 0
    query()
    next_request()
    assert not connection.health_check_done


def test_a_connection_that_broke_is_replaced(settings):
    query()
    broken = connection.connection
    broken.close()  # as a server restart leaves it
    connection.errors_occurred = True  # the request that met it failed
    next_request()  # Django closes it at the end of that request
    query()
    assert connection.connection is not broken and not connection.connection.closed
