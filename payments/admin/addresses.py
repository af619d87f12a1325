"""Admin addresses that carry an object's id as it is: /admin/webhooks/event/evt_0U6…/change/.

Django's admin quotes an object id in its addresses (`_` becomes `_5F`), so an id copied from the
address bar (`evt_5F0U6…`) would be no id of ours. Our ids are a prefix, `_` and letters and
digits (payments.ids): nothing in them needs quoting. The admin keeps reversing its addresses with
quoted ids and unquoting what it is given; the converter below sits between the two, so the
address itself shows the id."""

from django.contrib.admin.utils import quote, unquote
from django.urls import URLPattern, path, register_converter


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
    """A ModelAdmin mixin: the object's pages are addressed by its id as it is."""

    def get_urls(self):
        return [_with_public_id(pattern) for pattern in super().get_urls()]
