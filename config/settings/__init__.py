"""Settings, all from the environment (django-environ), one module per topic.

The defaults are the embedded set-up: SQLite in var/, Celery on a SQLite broker, sandbox providers.
Every variable read here is listed in docs/operations/configuration.md. The parts are read in
this order, each importing what it needs from those before it; a value that cannot be right stops
the service at start (ImproperlyConfigured), in the part that reads it.

  base               the environment, DEBUG, the secret key, the public address, the hosts
  apps               installed apps, middleware, URLs, templates, languages, static files
  database           DATABASE_URL, SQLite's sharing, PostgreSQL's connections and timeouts
  cache_and_broker   Redis or the embedded broker, the one-machine refusal, Celery and its queues
  mail               EMAIL_URL and the sender
  security           HTTPS, cookies, headers, the request body, throttles, sign-in lockouts (axes)
  api                /v1: REST framework, idempotency, API keys, the OpenAPI description
  accounts           the dashboard's accounts (allauth), two-factor, sessions, invitations
  payments           prompts' and card payments' deadlines, reconciliation, retries, the sandbox
  logging            the log's format and level
  providers          the live providers' credentials, the adapters, the rails offered live
  networks           the networks' amount limits, typed card amounts, when a network is degraded
  sms                text messages: the SMS vendor, its credentials, the sender name, retries
"""

# isort: skip_file
from config.settings.base import *  # noqa: F403
from config.settings.apps import *  # noqa: F403
from config.settings.database import *  # noqa: F403
from config.settings.cache_and_broker import *  # noqa: F403
from config.settings.mail import *  # noqa: F403
from config.settings.security import *  # noqa: F403
from config.settings.api import *  # noqa: F403
from config.settings.accounts import *  # noqa: F403
from config.settings.payments import *  # noqa: F403
from config.settings.logging import *  # noqa: F403
from config.settings.providers import *  # noqa: F403
from config.settings.networks import *  # noqa: F403
from config.settings.sms import *  # noqa: F403
