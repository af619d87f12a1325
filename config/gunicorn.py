"""gunicorn's settings in production (`gunicorn config.wsgi -c config/gunicorn.py`); the command
line still overrides any of them (e.g. --bind).

Two threads per worker: no request waits on anything slower than PostgreSQL or Redis (operators,
the card provider and merchants' receivers are called by Celery workers), so a thread is free
again within milliseconds, while each wait hands the interpreter to another of its worker's
threads and back, which costs CPU with every thread more (README "Performance": 4 × 2 answered
GET and POST of a charge faster than 4 × 4, with half the p99)."""

import os

bind = os.environ.get("GUNICORN_BIND", "0.0.0.0:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "4"))
threads = int(os.environ.get("GUNICORN_THREADS", "2"))
