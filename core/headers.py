"""The headers that keep pages private (docs/operations/security.md, "Private pages"): what a
browser, a proxy or a shared computer may keep of them, and what a page may load or run."""

from django.utils.cache import add_never_cache_headers

# People's pages: signed-in dashboards, accounts and the staff's admin.
PRIVATE_PAGES = ("/dashboard", "/accounts", "/admin")


def content_security_policy(form_action: str = "") -> str:
    """Our own scripts, styles and images only, never inline; no frame may hold the page; forms
    post to us (and to `form_action`, the card provider's page, when given)."""
    return "; ".join(
        [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src 'self' data:",
            "connect-src 'self'",
            f"form-action 'self'{' ' + form_action if form_action else ''}",
            "frame-ancestors 'none'",
            "base-uri 'none'",
        ]
    )


def _under(path: str, prefix: str) -> bool:
    return path == prefix or path.startswith(prefix + "/")


class PrivatePagesMiddleware:
    """Every /v1 answer, errors and 404s included, is kept by no one (it may hold a signing
    secret or a customer's phone); the people's pages neither, nor shared between users
    (`private`), and they carry the hosted pages' Content-Security-Policy unless the view set a
    policy of its own."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        path = request.path_info
        if _under(path, "/v1"):
            response["Cache-Control"] = "no-store"
        elif any(_under(path, prefix) for prefix in PRIVATE_PAGES):
            add_never_cache_headers(response)
            response.setdefault("Content-Security-Policy", content_security_policy())
        return response
