"""The list envelope `{object: "list", url, data, has_more, limit, offset}`: limit (1–100,
default 10), offset or keyset `starting_after`, newest first."""

import re
from collections.abc import Callable, Iterable

from django.db.models import Q, QuerySet
from django.utils.translation import gettext as _
from rest_framework.request import Request

from core.errors import InvalidRequest

DEFAULT_LIMIT = 10
MAX_LIMIT = 100
# Deeper than this, use starting_after; it also keeps OFFSET within what databases accept.
MAX_OFFSET = 1_000_000_000


def _int_param(request: Request, name: str, default: int, lo: int, hi: int | None) -> int:
    raw = request.query_params.get(name)
    if raw is None or raw == "":
        return default
    match = re.fullmatch(r"(-?)0*([0-9]+)", raw)
    if match is None:
        raise InvalidRequest(
            _("Invalid %(param)s: must be an integer.") % {"param": name}, param=name
        )
    sign, digits = match.groups()
    # Too many digits is simply out of range (and never reaches int() or the database).
    value = int(sign + digits) if len(digits) <= 18 else (-1 if sign else 10**19)
    if value < lo or (hi is not None and value > hi):
        message = (
            _("Invalid %(param)s: must be between %(min)s and %(max)s.")
            if hi is not None
            else _("Invalid %(param)s: must be at least %(min)s.")
        )
        raise InvalidRequest(message % {"param": name, "min": lo, "max": hi}, param=name)
    return value


def paginate(
    request: Request,
    queryset: QuerySet,
    represent: Callable[[Iterable], list[dict]],
    *,
    cursor_scope: QuerySet | None = None,
) -> dict:
    """One page of `queryset` (already filtered to the caller's merchant and mode).

    `represent` turns the page's objects into API dicts. One query for the page, plus one to
    resolve `starting_after`, whatever the page size. `cursor_scope` (default: `queryset`) is
    where a `starting_after` id is looked up: the caller's objects before any filter, so that an
    object which no longer matches a filter (a charge that left `pending`) still works as cursor.
    """
    queryset = queryset.order_by("-created_at", "-id")
    scope = queryset if cursor_scope is None else cursor_scope

    def cursor(pk: str) -> tuple | None:
        return scope.filter(pk=pk).values_list("created_at", "id").first()

    def page(after: tuple | None, offset: int, count: int) -> list:
        rows = queryset
        if after is not None:
            # (created_at, id) < cursor; the first term bounds the index range scan.
            rows = rows.filter(created_at__lte=after[0]).filter(
                Q(created_at__lt=after[0]) | Q(id__lt=after[1])
            )
        return list(rows[offset : offset + count])

    return paginate_with(request, page=page, cursor=cursor, represent=represent)


def paginate_sequence(request: Request, rows: list, represent: Callable[[Iterable], list[dict]]):
    """The list envelope of a short list held whole, in its own order, whose objects have no id
    to start after (the networks): limit and offset only."""
    return paginate_with(
        request,
        page=lambda _after, offset, count: rows[offset : offset + count],
        cursor=lambda _pk: None,
        represent=represent,
    )


def paginate_with(
    request: Request,
    *,
    page: Callable[[tuple | None, int, int], list],
    cursor: Callable[[str], tuple | None],
    represent: Callable[[Iterable], list[dict]],
) -> dict:
    """The list envelope of a list read by its own statements: `cursor(id)` is where the
    caller's object `id` stands, (created_at, id), or None when the caller has no such object
    (whatever the filters); `page(after, offset, count)` the objects newest first, those at or
    before `after` (a cursor) left out, `offset` skipped, at most `count`."""
    limit = _int_param(request, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)
    offset = _int_param(request, "offset", 0, 0, MAX_OFFSET)
    starting_after = request.query_params.get("starting_after")
    after = None
    if starting_after:
        if offset:
            raise InvalidRequest(
                _("offset must be 0 when starting_after is given."), param="offset"
            )
        after = cursor(starting_after)
        if after is None:
            raise InvalidRequest(
                _("Invalid starting_after: no such object '%(id)s'.") % {"id": starting_after},
                param="starting_after",
            )
    rows = page(after, offset, limit + 1)
    return {
        "object": "list",
        "url": request.path,
        "data": represent(rows[:limit]),
        "has_more": len(rows) > limit,
        "limit": limit,
        "offset": offset,
    }
