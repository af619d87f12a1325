"""Health check: is the database reachable, is the broker reachable."""

from django.db import connection
from django.http import JsonResponse
from django.views.decorators.http import require_GET


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:
        return False


def _broker_ok() -> bool:
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return True
    except Exception:
        return False


@require_GET
def healthz(request):
    checks = {"database": _database_ok(), "broker": _broker_ok()}
    healthy = all(checks.values())
    return JsonResponse(
        {"status": "ok" if healthy else "unavailable", "checks": checks},
        status=200 if healthy else 503,
    )
