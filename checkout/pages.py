"""What every hosted page shares, checkout's own and the payment links' page (/pay/{slug}): the
customer's language and its links, the security headers of a page where people pay, and what a
throttled page says."""

from functools import wraps

from django.conf import settings
from django.utils import translation

from core.headers import content_security_policy

LANGUAGES = {code for code, _name in settings.LANGUAGES}
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600


def hosted_page(view):
    """Language from ?lang= (kept in the language cookie), else the cookie or Accept-Language;
    and the security headers of a page where people pay."""

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        chosen = request.GET.get("lang")
        if chosen in LANGUAGES:
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen
        response = view(request, *args, **kwargs)
        if chosen in LANGUAGES:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                chosen,
                max_age=LANGUAGE_COOKIE_AGE,
                samesite="Lax",
                secure=request.is_secure(),
                httponly=True,
            )
        response.setdefault("Content-Security-Policy", content_security_policy())
        response["X-Frame-Options"] = "DENY"
        response["Cache-Control"] = "no-store"
        return response

    return wrapper


def language_links(request) -> list[dict]:
    current = translation.get_language()[:2]
    links = []
    for code, label in settings.LANGUAGES:
        query = request.GET.copy()
        query["lang"] = code
        links.append(
            {
                "code": code,
                "label": label,
                "url": f"?{query.urlencode()}",
                "current": code == current,
            }
        )
    return links


def too_many_message(wait: int) -> str:
    """What a throttled hosted page says: when to try again, in the customer's language."""
    minutes = max(1, round(wait / 60))
    return translation.ngettext(
        "Too many payment attempts. Please try again in %(minutes)s minute.",
        "Too many payment attempts. Please try again in %(minutes)s minutes.",
        minutes,
    ) % {"minutes": minutes}
