"""Logging: one line per record on the console, security records included; Celery's routine
lines (beat's ticks, each task received and succeeded) at DEBUG (config.logfilters). The Celery
workers log through their own handlers, which config.celery gives the same filter."""

from config.settings.base import env

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "filters": {
        "security_one_line": {"()": "config.logfilters.SecurityOneLine"},
        "routine_at_debug": {"()": "config.logfilters.RoutineAtDebug"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["security_one_line", "routine_at_debug"],
        }
    },
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.request": {"level": "ERROR"},
        # axes says its version at INFO in every process that starts: nothing to act on.
        "axes.apps": {"level": "WARNING"},
    },
}
