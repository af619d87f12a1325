"""gunicorn's settings in production (`gunicorn config.wsgi -c config/gunicorn.py`); the command
line still overrides any of them (e.g. --bind)."""

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "4"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
