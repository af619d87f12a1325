"""What the dashboard's pages share: the mode as a boolean, a row's number as a form or a path
sends it, an object of the merchant's or 404, and a keyset page of a list from the query
string."""

from collections.abc import Callable

from django.http import Http404, QueryDict

from core.errors import ResourceMissing
from dashboard.pages.keyset import Page, keyset_page


def livemode(request) -> bool:
    return request.mode == "live"


def row_id(value) -> int | None:
    """The number of a row (a key, a member) as a form or a path sends it, or None for anything
    else, which names no row: ASCII digits only ("²".isdigit() is true, and int() refuses it)."""
    text = str(value or "")
    return int(text) if text.isascii() and text.isdigit() else None


def of_merchant(read: Callable, **kwargs):
    """A selector's object of the request's merchant and mode, or 404 (another merchant's, or
    the other mode's, is missing, never forbidden)."""
    try:
        return read(merchant=kwargs.pop("merchant"), livemode=kwargs.pop("livemode"), **kwargs)
    except ResourceMissing:
        raise Http404 from None


def page_of(request, queryset, *, scope) -> Page:
    return keyset_page(
        queryset,
        scope=scope,
        after=request.GET.get("after") or None,
        before=request.GET.get("before") or None,
    )


def query_without_cursor(request) -> str:
    """The page's query string without its cursor, for the next and previous pages' links."""
    query: QueryDict = request.GET.copy()
    for name in ("after", "before"):
        query.pop(name, None)
    return query.urlencode()
