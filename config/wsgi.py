"""WSGI entry point (gunicorn config.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from core.api.middleware import request_bodies  # noqa: E402 (needs the settings module)

application = request_bodies(get_wsgi_application())
