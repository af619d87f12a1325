"""/v1/docs: Redoc served from our own static files (drf-spectacular-sidecar), so the reference
opens offline: no web fonts, no CDN, and a Content-Security-Policy that allows only this host.
/v1/openapi.json: the description Redoc reads, made once per process and language."""

import threading

from django.conf import settings
from django.utils import translation
from drf_spectacular.views import SpectacularJSONAPIView, SpectacularRedocView
from rest_framework.response import Response

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


class ApiSchemaView(SpectacularJSONAPIView):
    """/v1/openapi.json, made once per process and language (it changes only with the code, which
    a restart brings) and answered from memory afterwards. Making it costs a few tenths of a
    second of CPU, on an address anyone may ask for; and drf-spectacular cannot make it in two
    threads at once (its extensions load their classes on first use, and a second request during
    the first one's answered 500), so it is made under a lock."""

    _made: dict[str, tuple[dict, str]] = {}  # language → (description, Content-Disposition)
    _lock = threading.Lock()

    def _get_schema_response(self, request):
        language = translation.get_language()
        if language not in dict(settings.LANGUAGES):  # ?lang=xx is answered in the default one
            language = settings.LANGUAGE_CODE
        made = self._made.get(language)
        if made is None:
            with self._lock:
                made = self._made.get(language)
                if made is None:
                    response = super()._get_schema_response(request)
                    made = (response.data, response["Content-Disposition"])
                    self._made[language] = made
        data, disposition = made
        return Response(data=data, headers={"Content-Disposition": disposition})
