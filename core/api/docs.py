"""/v1/docs: Redoc served from our own static files (drf-spectacular-sidecar), so the reference
opens offline: no web fonts, no CDN, and a Content-Security-Policy that allows only this host.
/v1/openapi.json: the description Redoc reads, made once per process and language."""

import threading

from django.conf import settings
from django.utils import translation
from drf_spectacular.utils import extend_schema
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
    the first one's answered 500), so it is made under a lock. It is made by drf-spectacular's
    generator, in the language asked for (?lang=, else Accept-Language) when it is one of
    LANGUAGES, else in the default one."""

    _made: dict[str, dict] = {}  # language → description
    _lock = threading.Lock()

    @extend_schema(exclude=True)  # the description does not describe itself
    def get(self, request, *args, **kwargs):
        language = request.GET.get("lang") or translation.get_language()
        if language not in dict(settings.LANGUAGES):
            language = settings.LANGUAGE_CODE
        made = self._made.get(language)
        if made is None:
            with self._lock:
                made = self._made.get(language)
                if made is None:
                    generator = self.generator_class(
                        urlconf=self.urlconf,
                        api_version=self.api_version or request.version,
                        patterns=self.patterns,
                    )
                    with translation.override(language):
                        made = generator.get_schema(request=request, public=self.serve_public)
                    self._made[language] = made
        title = settings.SPECTACULAR_SETTINGS["TITLE"]
        return Response(made, headers={"Content-Disposition": f'inline; filename="{title}.json"'})
