"""Admin addresses that carry an object's id as it is: /admin/webhooks/event/evt_0U6…/change/.

Django's admin quotes an object id in its addresses (`_` becomes `_5F`), so an id copied from the
address bar (`evt_5F0U6…`) would be no id of ours. Our ids are a prefix, `_` and letters and
digits (core.ids): nothing in them needs quoting. The admin keeps reversing its addresses with
quoted ids and unquoting what it is given; the converter below sits between the two, so the
address itself shows the id."""

from django.contrib.admin.utils import quote, unquote
from django.db.models import Q
from django.urls import URLPattern, path, register_converter

from core import ids


class PublicIdConverter:
    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        return quote(value)  # the admin's views unquote the id they are given

    def to_url(self, value: str) -> str:
        return unquote(value)  # the admin reverses its addresses with quoted ids


register_converter(PublicIdConverter, "public_id")

QUOTED_ID = "<path:object_id>"
PUBLIC_ID = "<public_id:object_id>"


def _with_public_id(pattern):
    route = str(pattern.pattern)
    if not isinstance(pattern, URLPattern) or QUOTED_ID not in route:
        return pattern
    return path(
        route.replace(QUOTED_ID, PUBLIC_ID),
        pattern.callback,
        pattern.default_args,
        name=pattern.name,
    )


class PublicIdAdmin:
    """A ModelAdmin mixin: the object's pages are addressed by its id as it is, and a search term
    shaped like one of our ids is looked up exactly."""

    def get_urls(self):
        return [_with_public_id(pattern) for pattern in super().get_urls()]

    def get_search_results(self, request, queryset, search_term):
        """An id pasted into the search box is looked up with `=` in the fields searched by id
        (the `=` entries of search_fields), which their indexes answer. Django's own `=` is a
        case-insensitive match (`UPPER(id) = UPPER(…)`) that no index answers, ORed on some
        pages with substring searches: every search read the whole table. Ids are
        case-sensitive, so an exact match is also the right one."""
        term = search_term.strip()
        exact = [name[1:] for name in self.get_search_fields(request) if name.startswith("=")]
        if exact and ids.looks_like_id(term):
            condition = Q()
            for name in exact:
                condition |= self.exactly(name, term)
            return queryset.filter(condition), False
        return super().get_search_results(request, queryset, search_term)

    def exactly(self, name: str, term: str) -> Q:
        """The condition an id search puts on one of the fields searched by id: `name = term`.
        A page whose index begins with another column says so here."""
        return Q(**{name: term})
