"""The broker's transports.

The embedded broker (kombu's SQLAlchemy transport on a SQLite file): its tables and queues are
created once, before the worker processes start. Started together on an empty broker file, the
workers would otherwise race to create them (`table kombu_queue already exists`).

Redis: kombu's transport, with a publish that does not build a new client each time.
"""

from collections.abc import Iterable

from kombu import Connection
from kombu.transport import redis as redis_transport

ATTEMPTS = 5


def is_embedded(broker_url: str) -> bool:
    return broker_url.startswith("sqla+sqlite:")


def prepare_embedded_broker(broker_url: str, queues: Iterable[str]) -> bool:
    """Create the broker's tables and declare `queues` on the embedded broker; False, with nothing
    done, for any other broker. Idempotent, and safe when two processes prepare at once: the
    loser of a creation race finds the table or row made by the other on its next attempt."""
    if not is_embedded(broker_url):
        return False
    from sqlalchemy.exc import DatabaseError

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


# --- Redis ---------------------------------------------------------------------------------------


class RedisChannel(redis_transport.Channel):
    """kombu's Redis channel, with one client for its synchronous commands (each publish) instead
    of a new one per command: building a redis-py client costs more than the LPUSH it sends.
    The client is stateless (its connections come from the channel's pool), so one is enough."""

    def _create_client(self, asynchronous=False):
        if asynchronous:
            return super()._create_client(asynchronous=True)
        client = self.__dict__.get("_sync_client")
        if client is None:
            client = self.__dict__["_sync_client"] = super()._create_client()
        return client


class RedisTransport(redis_transport.Transport):
    """The Redis transport of the broker (settings.CELERY_BROKER_TRANSPORT with REDIS_URL)."""

    Channel = RedisChannel
