"""Persistent database connections without a health-check round trip on busy paths.

With CONN_HEALTH_CHECKS Django sends `SELECT 1` on a persistent connection before the first query
of every request (and of every task, config/celery.py): on the hot paths a round trip as long as
the request's own query. A connection that ran a query less than DB_HEALTH_CHECK_AFTER seconds ago,
and was not closed at the end of its request (Django closes one that broke), is taken as healthy;
one idle for longer is still checked, which is what the check is for: a connection closed while
idle by the server, a proxy or a restart. A restart within that second can cost each connection
used in it one failed request, as it would without health checks. 0 checks before every request.
"""

import time

from django.conf import settings
from django.core.signals import request_started
from django.db import connections
from django.db.backends.signals import connection_created


def _record_use(execute, sql, params, many, context):
    result = execute(sql, params, many, context)
    context["connection"].used_at = time.monotonic()
    return result


def _watch(sender, connection, **kwargs) -> None:
    if _record_use not in connection.execute_wrappers:
        connection.execute_wrappers.append(_record_use)


def skip_recent_health_checks(**kwargs) -> None:
    """After Django's close_old_connections: a connection used moments ago is not checked."""
    now = time.monotonic()
    for connection in connections.all(initialized_only=True):
        used_at = getattr(connection, "used_at", None)
        if (
            connection.connection is not None
            and used_at is not None
            and now - used_at < settings.DB_HEALTH_CHECK_AFTER
        ):
            connection.health_check_done = True


def connect() -> None:
    """From PaymentsConfig.ready, after Django's own receivers."""
    connection_created.connect(_watch, dispatch_uid="database-record-use")
    request_started.connect(skip_recent_health_checks, dispatch_uid="database-recent-use")
