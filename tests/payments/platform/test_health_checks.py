"""Persistent connections are health-checked (Django's CONN_HEALTH_CHECKS) before a request's
first query: a connection the server closed while idle (a restart, a proxy) is replaced, not
handed to the request."""

import pytest
from django.db import connection

from tests.helpers import killed_by_the_server, next_request

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def query() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        return cursor.fetchone()[0]


def test_a_dead_connection_is_checked_and_replaced():
    connection.close()  # opened now: not one past CONN_MAX_AGE from earlier in the run
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    query()
    killed_by_the_server()
    next_request()
    assert query() == 1  # the check found it dead: a new connection answered
