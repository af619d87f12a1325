"""Each person's language, as they last used the dashboard (the switcher, else their browser's):
mail sent to them about something they did not do themselves, such as a new settlement account
of their team, is written in it."""

from django.conf import settings
from django.utils import timezone, translation

from dashboard.models import UserLanguage

SESSION_LANGUAGE = "dashboard_language"


def remember(request) -> None:
    """Keep the request's language as the user's (written when it changes: the session says
    which one was kept last, so a page costs no write)."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    if language not in dict(settings.LANGUAGES):
        language = settings.LANGUAGE_CODE
    if request.session.get(SESSION_LANGUAGE) == language:
        return
    UserLanguage.objects.update_or_create(
        user=request.user, defaults={"language": language, "updated_at": timezone.now()}
    )
    request.session[SESSION_LANGUAGE] = language


def languages_of(user_ids) -> dict[int, str]:
    """user id → language, French (the dashboard's default) for those never seen."""
    kept = dict(
        UserLanguage.objects.filter(user_id__in=list(user_ids)).values_list("user_id", "language")
    )
    return {user_id: kept.get(user_id, settings.LANGUAGE_CODE) for user_id in user_ids}
