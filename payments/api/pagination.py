"""The list envelope of contract §5: limit/offset, keyset `starting_after`, newest first."""

from collections.abc import Callable, Iterable

from django.db.models import Q, QuerySet
from rest_framework.request import Request

from payments.errors import InvalidRequest

DEFAULT_LIMIT = 10
MAX_LIMIT = 100


def _int_param(request: Request, name: str, default: int, lo: int, hi: int | None) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    if not raw.isdigit():
        raise InvalidRequest(f"Invalid {name}: must be an integer.", param=name)
    value = int(raw)
    if value < lo or (hi is not None and value > hi):
        bound = f"between {lo} and {hi}" if hi is not None else f"at least {lo}"
        raise InvalidRequest(f"Invalid {name}: must be {bound}.", param=name)
    return value


def paginate(
    request: Request,
    queryset: QuerySet,
    represent: Callable[[Iterable], list[dict]],
) -> dict:
    """One page of `queryset` (already filtered to the caller's merchant and mode).

    `represent` turns the page's objects into API dicts. One query for the page, plus one to
    resolve `starting_after`, whatever the page size.
    """
    limit = _int_param(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    offset = _int_param(request, "offset", 0, 0, None)
    queryset = queryset.order_by("-created_at", "-id")
    starting_after = request.query_params.get("starting_after")
    if starting_after:
        if offset:
            raise InvalidRequest("offset must be 0 when starting_after is given.", param="offset")
        cursor = queryset.filter(pk=starting_after).values("created_at", "id").first()
        if cursor is None:
            raise InvalidRequest(
                f"Invalid starting_after: no such object '{starting_after}'.",
                param="starting_after",
            )
        queryset = queryset.filter(
            Q(created_at__lt=cursor["created_at"])
            | Q(created_at=cursor["created_at"], id__lt=cursor["id"])
        )
    rows = list(queryset[offset : offset + limit + 1])
    return {
        "object": "list",
        "url": request.path,
        "data": represent(rows[:limit]),
        "has_more": len(rows) > limit,
        "limit": limit,
        "offset": offset,
    }
