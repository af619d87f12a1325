"""Log filters of the service's logging (config.settings.LOGGING)."""

import logging

from celery.app.trace import LOG_RECEIVED, LOG_SUCCESS


class SecurityOneLine(logging.Filter):
    """Django reports a request it refuses as suspicious (a form of too many fields, a Host
    header outside ALLOWED_HOSTS, a body over DATA_UPLOAD_MAX_MEMORY_SIZE) on a
    `django.security.*` logger at ERROR with the traceback of its own refusal. That is a
    client's input, answered 400, not a fault of ours: it is said in one warning line, as the
    API's refusals are (the logger's name still says what it was)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("django.security.") and record.levelno == logging.ERROR:
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.WARNING, "WARNING"
        return True


# Celery's routine lines: beat sending each periodic job (every few seconds, docs/operations/
# production.md's schedule), and a worker receiving and finishing each task. Said at DEBUG, so
# that at INFO the log holds what a person acts on: start-up, failures, retries, the service's
# own lines.
BEAT_SENDING = "Scheduler: Sending due task %s (%s)"
ROUTINE_MESSAGES = frozenset({BEAT_SENDING, LOG_RECEIVED, LOG_SUCCESS})


class RoutineAtDebug(logging.Filter):
    """Celery's routine lines (beat's ticks, a task received, a task succeeded), which it logs at
    INFO, demoted to DEBUG: shown only when the log's level (the root logger's) is DEBUG."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.levelno != logging.INFO or not record.name.startswith("celery."):
            return True
        if record.msg not in ROUTINE_MESSAGES:
            return True
        record.levelno, record.levelname = logging.DEBUG, "DEBUG"
        return logging.getLogger().isEnabledFor(logging.DEBUG)
