"""Health, as the two machines that ask need it.

`/healthz` (liveness, for a process supervisor): the process answers, 200, nothing else checked.
Restarting a process cures neither a database nor a broker out of reach, so neither decides it.

`/readyz` (readiness, for a load balancer): 200 while this node should be sent requests; 503 while
the database does not answer (nothing of the API works without it) or while the node is draining,
which it is while the file DRAIN_FILE names exists: the deploy's stop step creates it, waits for
the balancer to see 503, then stops the server. A file, not a signal, so that every worker of the
server sees it alike, whatever the worker class. The broker is reported for operators but decides
nothing: without Redis the API keeps taking payments and the periodic sweeps catch up.
"""

import os

from celery import current_app
from django.conf import settings
from django.db import Error, connection
from django.http import JsonResponse
from django.views.decorators.http import require_safe

# How long readiness waits for the broker, which decides nothing: well inside a balancer's
# timeout for the probe.
BROKER_CONNECT_TIMEOUT = 1


def _database_ok() -> bool:
    """One `SELECT 1`; a connection that died while idle is replaced and asked once more."""
    for _attempt in range(2):
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                return cursor.fetchone() == (1,)
        except Error:
            connection.close()
    return False


def _broker_ok() -> bool:
    try:
        with current_app.connection_for_write(connect_timeout=BROKER_CONNECT_TIMEOUT) as conn:
            conn.ensure_connection(max_retries=1, timeout=BROKER_CONNECT_TIMEOUT)
        return True
    except Exception:
        return False


def _draining() -> bool:
    return bool(settings.DRAIN_FILE) and os.path.exists(settings.DRAIN_FILE)


@require_safe
def healthz(request):
    return JsonResponse({"status": "ok", "checks": {}})


@require_safe
def readyz(request):
    checks = {"database": _database_ok(), "broker": _broker_ok()}
    if _draining():
        status = "draining"
    elif not checks["database"]:
        status = "unavailable"
    else:
        status = "ok"
    return JsonResponse({"status": status, "checks": checks}, status=200 if status == "ok" else 503)
