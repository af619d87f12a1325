"""Log filters of the service's logging (config.settings.LOGGING)."""

import logging


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
