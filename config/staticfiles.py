"""Static files as `collectstatic` gathers them for nginx to serve (deploy/nginx/): without
source maps. Nobody's browser needs them, and the largest (redoc.standalone.js.map, 3.9 MB) would
only be one more large file to ask for and never read."""

from django.contrib.staticfiles.apps import StaticFilesConfig
from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticFiles(StaticFilesConfig):
    """django.contrib.staticfiles with `*.map` among its ignored patterns (Django's documented
    way to change collectstatic's default ones)."""

    ignore_patterns = [*StaticFilesConfig.ignore_patterns, "*.map"]


def _without_source_maps(patterns):
    def keep(pattern) -> bool:
        regex = pattern[0] if isinstance(pattern, tuple) else pattern
        return "sourceMappingURL" not in regex

    return tuple(
        (extension, tuple(p for p in extension_patterns if keep(p)))
        for extension, extension_patterns in patterns
    )


class ManifestStorage(CompressedManifestStaticFilesStorage):
    """Hashed, compressed names, as whitenoise's storage gives them; a file's `sourceMappingURL`
    comment is left as it is instead of being rewritten to the hashed name of a map that is not
    collected (which would stop collectstatic)."""

    patterns = _without_source_maps(CompressedManifestStaticFilesStorage.patterns)
