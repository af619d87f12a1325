"""Redis (the cache and Celery's broker) or, on one machine, the file cache and the embedded SQLite
broker; the refusal of the one-machine set-up with DEBUG off unless EMBEDDED says so on purpose;
Celery, its queues, and the pace of payout batches."""

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import DEBUG, VAR_DIR, env
from config.settings.database import DATABASES

REDIS_URL = env.str("REDIS_URL", default="")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # An unreachable Redis costs a request seconds, not the OS's connect timeout.
            "OPTIONS": {"socket_connect_timeout": 2, "socket_timeout": 2},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
            "LOCATION": str(VAR_DIR / "cache"),
        }
    }

# --- One machine on purpose, or many ---------------------------------------------------------
# SQLite and the embedded broker (a file in VAR_DIR) serve one machine only: with DEBUG off the
# service refuses them unless EMBEDDED=true says that this is a one-machine set-up on purpose.
EMBEDDED = env.bool("EMBEDDED", default=False)
if not DEBUG and not EMBEDDED:
    _one_machine = [
        name
        for name, unset in (
            ("DATABASE_URL (PostgreSQL)", DATABASES["default"]["ENGINE"].endswith("sqlite3")),
            ("REDIS_URL", not REDIS_URL),
        )
        if unset
    ]
    if _one_machine:
        raise ImproperlyConfigured(
            f"Set {' and '.join(_one_machine)}: with DEBUG off the service runs on PostgreSQL "
            "and Redis shared by every machine. For a one-machine set-up on SQLite and the "
            "embedded broker, on purpose, set EMBEDDED=true."
        )

CELERY_BROKER_URL = REDIS_URL or f"sqla+sqlite:///{VAR_DIR / 'broker.sqlite3'}"
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Beat keeps its state (when each job last ran) in memory, not in a file of the machine it runs on
# (Celery's plain Scheduler instead of the default shelve file): the schedule itself is the code of
# config/celery.py, and every job is safe to run twice, so a beat restarted anywhere, or a second
# beat, only makes each job run once at its start.
CELERY_BEAT_SCHEDULER = "celery.beat:Scheduler"
# The periodic sweeps run on their own queue (config/celery.py), so a backlog on the default
# queue never delays them: a worker must consume it (runservice's does).
PERIODIC_QUEUE = env.str("PERIODIC_QUEUE", default="periodic")
CELERY_TIMEZONE = "UTC"
# Celery would close the database connection around every task; config/celery.py keeps it as
# Django does around a request (DB_CONN_MAX_AGE, health checks). Celery still recycles it now
# and then.
CELERY_DB_REUSE_MAX = 1000
# Live M-Pesa payment calls block while the customer enters the PIN (up to MPESA_TIMEOUT): they
# run on this queue, so a few slow customers never hold the workers that poll and send webhooks.
PAYMENTS_LONG_QUEUE = env.str("PAYMENTS_LONG_QUEUE", default="payments-long")
# Webhook deliveries run on their own queue and workers: a merchant's slow or silent receiver
# never holds a worker that sends prompts, checks statuses or sends payouts.
WEBHOOKS_QUEUE = env.str("WEBHOOKS_QUEUE", default="webhooks")
# Payout batches (batches/): rows of one batch paid per second by its worker task, and the
# seconds without a row paid after which the sweep takes a processing batch up again (its worker
# was killed, or the broker lost the task).
BATCH_PAYOUT_RATE = env.int("BATCH_PAYOUT_RATE", default=10)
BATCH_RESUME_AFTER = env.int("BATCH_RESUME_AFTER", default=60)
if REDIS_URL:
    # Longer than the longest countdown we use, so a delayed task is not redelivered early.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": 43200, "socket_connect_timeout": 3}
# Embedded broker: the options are passed to SQLAlchemy's create_engine; none are needed.
