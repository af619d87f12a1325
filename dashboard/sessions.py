"""A person's sessions: the others ended when their two-factor changes, as a password change
ends them (docs/operations/security.md, "Two-factor changes")."""

from importlib import import_module

from django.conf import settings
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.models import Session
from django.utils import timezone


def other_sessions_end(*, user, keep: str | None) -> int:
    """End every live session of `user` but the one whose key is `keep` (the browser that made
    the change): each is signed out on its next request. Sessions live in the database (Django's
    default session engine), which has no column for the user: each live session is read.
    Returns how many were ended."""
    store = import_module(settings.SESSION_ENGINE).SessionStore
    ended = 0
    live = Session.objects.filter(expire_date__gt=timezone.now()).exclude(session_key=keep)
    for session in live.iterator():
        if session.get_decoded().get(SESSION_KEY) == str(user.pk):
            store(session_key=session.session_key).delete()
            ended += 1
    return ended
