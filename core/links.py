"""Links: our own absolute URLs (under PUBLIC_BASE_URL, from the URL names), and one way to add
our parameters to a URL the merchant gave us."""

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.urls import reverse


def public_url(name: str, *args) -> str:
    """The absolute URL of one of our routes, as the outside world reaches it."""
    return settings.PUBLIC_BASE_URL.rstrip("/") + reverse(name, args=args)


def with_query(url: str, params: dict[str, str]) -> str:
    """The URL with `params` set in its query string: the merchant's own parameters are kept
    in their order, and any of ours the URL already carried are replaced, never repeated."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    return urlunsplit(parts._replace(query=urlencode([*query, *params.items()])))
