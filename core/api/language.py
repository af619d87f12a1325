"""The language of /v1 answers, read from the request's Accept-Language."""

from django.utils.translation.trans_real import parse_accept_lang_header


def api_language(request) -> str:
    """The language of /v1 answers: French when the client's Accept-Language prefers it, English
    otherwise (the hosted pages keep French as their default)."""
    for tag, quality in parse_accept_lang_header(request.META.get("HTTP_ACCEPT_LANGUAGE", "")):
        if quality <= 0:
            continue
        primary = tag.split("-")[0].lower()
        if primary in ("fr", "en"):
            return primary
    return "en"
