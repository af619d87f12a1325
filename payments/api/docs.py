"""/v1/docs: Redoc served from our own static files (drf-spectacular-sidecar), so the reference
opens offline: no web fonts, no CDN, and a Content-Security-Policy that allows only this host."""

from drf_spectacular.views import SpectacularRedocView

# Redoc's bundle injects its styles at run time and builds its search index in a blob: worker.
DOCS_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


class ApiDocsView(SpectacularRedocView):
    template_name = "api_docs.html"

    def finalize_response(self, request, response, *args, **kwargs):
        response = super().finalize_response(request, response, *args, **kwargs)
        response["Content-Security-Policy"] = DOCS_CSP
        return response
