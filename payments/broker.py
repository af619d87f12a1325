"""The broker.

The embedded broker (kombu's SQLAlchemy transport on a SQLite file): its tables and queues are
created once, before the worker processes start. Started together on an empty broker file, the
workers would otherwise race to create them (`table kombu_queue already exists`).

On Redis, kombu's own transport. Tasks are sent by name, through a Celery signature's
`apply_async` (core/queues.py, called by each app's queues module).
"""

from collections.abc import Iterable

from kombu import Connection

ATTEMPTS = 5


def is_embedded(broker_url: str) -> bool:
    return broker_url.startswith("sqla+sqlite:")


def prepare_embedded_broker(broker_url: str, queues: Iterable[str]) -> bool:
    """Create the broker's tables and declare `queues` on the embedded broker; False, with nothing
    done, for any other broker. Idempotent, and safe when two processes prepare at once: the
    loser of a creation race finds the table or row made by the other on its next attempt."""
    if not is_embedded(broker_url):
        return False
    from sqlalchemy.exc import DatabaseError  # installed for the embedded broker only

    for attempt in range(1, ATTEMPTS + 1):
        try:
            with Connection(broker_url) as connection:
                channel = connection.default_channel
                for queue in queues:
                    channel.queue_declare(queue=queue)
            return True
        except DatabaseError:
            if attempt == ATTEMPTS:
                raise
    return True
