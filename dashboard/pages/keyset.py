"""Keyset pages of a list, newest first by (created_at, id): a page is the rows after (or
before) one row, read through the list's index from that row on, so the thousandth page costs
what the first does, and rows written between two page loads neither push a row onto the next
page twice nor hide one."""

from dataclasses import dataclass

from django.db.models import Q, QuerySet

PAGE_SIZE = 25


@dataclass(frozen=True)
class Page:
    rows: list
    after: str | None  # the cursor of the next (older) page, None on the last one
    before: str | None  # the cursor of the previous (newer) page, None on the first one


def _position(scope: QuerySet, pk: str | None) -> tuple | None:
    if not pk:
        return None
    return scope.filter(pk=pk).values_list("created_at", "id").first()


def keyset_page(
    queryset: QuerySet,
    *,
    scope: QuerySet,
    after: str | None = None,
    before: str | None = None,
    size: int = PAGE_SIZE,
) -> Page:
    """One page of `queryset` (filtered to the merchant and mode): the `size` rows older than the
    row `after`, or the `size` rows newer than the row `before`, or the newest. A cursor is
    looked up in `scope` (the merchant's rows of the mode before any filter, so that a row that
    no longer matches a filter still works as one); a cursor that is none of them is the first
    page. Two queries at most."""
    newest_first = queryset.order_by("-created_at", "-id")
    position = _position(scope, after)
    if position is not None:
        created_at, pk = position
        # (created_at, id) < cursor; the first term bounds the index range scan.
        rows = list(
            newest_first.filter(created_at__lte=created_at).filter(
                Q(created_at__lt=created_at) | Q(id__lt=pk)
            )[: size + 1]
        )
        return Page(
            rows=rows[:size],
            after=rows[size - 1].id if len(rows) > size else None,
            before=rows[0].id if rows else None,
        )
    position = _position(scope, before)
    if position is not None:
        created_at, pk = position
        rows = list(
            queryset.order_by("created_at", "id")
            .filter(created_at__gte=created_at)
            .filter(Q(created_at__gt=created_at) | Q(id__gt=pk))[: size + 1]
        )
        newer = len(rows) > size
        rows = rows[:size][::-1]
        if not newer and len(rows) < size:  # back at the top: the newest page as it is now
            return keyset_page(queryset, scope=scope, size=size)
        return Page(
            rows=rows,
            after=rows[-1].id if rows else None,
            before=rows[0].id if newer else None,
        )
    rows = list(newest_first[: size + 1])
    return Page(
        rows=rows[:size], after=rows[size - 1].id if len(rows) > size else None, before=None
    )
