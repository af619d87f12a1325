"""The dashboard's htmx requests (the payments search, a batch's live counts) answered with a
redirect — the session has ended, or the team now requires two-factor — send the whole page
there (django-htmx's HttpResponseClientRedirect). htmx would otherwise follow the redirect
itself and paste the sign-in or set-up page into the fragment it asked for."""

from django_htmx.http import HttpResponseClientRedirect

REDIRECTS = (301, 302, 303, 307, 308)


class HtmxRedirectMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if request.htmx and response.status_code in REDIRECTS and response.has_header("Location"):
            client_redirect = HttpResponseClientRedirect(response["Location"])
            client_redirect.cookies = response.cookies
            return client_redirect
        return response
