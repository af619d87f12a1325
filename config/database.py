"""Persistent database connections without a health-check round trip on busy paths.

With CONN_HEALTH_CHECKS Django sends `SELECT 1` on a persistent connection before the first query
of every request (and of every task, config/celery.py): on the hot paths a round trip as long as
the request's own query. A connection that ran a query less than DB_HEALTH_CHECK_AFTER seconds ago,
and was not closed at the end of its request (Django closes one that broke), is taken as healthy;
one idle for longer is still checked, which is what the check is for: a connection closed while
idle by the server, a proxy or a restart. A restart within that second can cost each connection
used in it one failed request, as it would without health checks. 0 checks before every request.

Each connection object gets this once, when it first connects (the backend itself stays Django's).
"""

import time

from django.conf import settings
from django.db.backends.signals import connection_created


def _watch(sender, connection, **kwargs) -> None:
    if "used_at" in connection.__dict__:
        return  # a reconnection of a connection object already watched
    connection.used_at = None
    open_cursor = connection._cursor
    check = connection.close_if_health_check_failed

    def _cursor(*args, **kwargs):
        cursor = open_cursor(*args, **kwargs)
        connection.used_at = time.monotonic()
        return cursor

    def close_if_health_check_failed() -> None:
        used_at = connection.used_at
        if (
            connection.connection is not None
            and used_at is not None
            and time.monotonic() - used_at < settings.DB_HEALTH_CHECK_AFTER
        ):
            connection.health_check_done = True  # used moments ago: no SELECT 1 first
        check()

    connection._cursor = _cursor
    connection.close_if_health_check_failed = close_if_health_check_failed


def query_ran(connection) -> None:
    """For a statement run without Django's cursor (payments.rows): the connection was used."""
    if "used_at" in connection.__dict__:
        connection.used_at = time.monotonic()


def connect() -> None:
    """From PaymentsConfig.ready."""
    connection_created.connect(_watch, dispatch_uid="database-recent-use")
