"""What the money pages share: the mode as a boolean, an object of the merchant's or 404, and a
keyset page of a list from the query string."""

from collections.abc import Callable

from django.http import Http404, QueryDict

from core.errors import ResourceMissing
from dashboard.pages.keyset import Page, keyset_page


def livemode(request) -> bool:
    return request.mode == "live"


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
