"""A thread's own connection to a Redis server, for the one command a request sends there (the
API gate's script, a task's LPUSH): straight to the socket, without redis-py's pool bookkeeping,
its client's retries and its observability hooks, which cost about a third of such a command in
CPU. The connection is made with the pool's own settings (address, timeouts, credentials), once
per thread, pool and process."""

import os
import threading

from redis.exceptions import ConnectionError as RedisConnectionError

_threads = threading.local()


class _Own:
    """A thread's own connection to a pool's server, and whether a reply came through it since
    it was last opened."""

    def __init__(self, pool):
        self.pool, self.pid = pool, os.getpid()
        self.connection = pool.connection_class(**pool.connection_kwargs)
        self.used = False


def own(pool) -> _Own:
    """This thread's own connection to `pool`'s server."""
    owned = getattr(_threads, "owned", None)
    if owned is None:
        owned = _threads.owned = {}
    found = owned.get(id(pool))
    if found is None or found.pool is not pool or found.pid != os.getpid():
        found = owned[id(pool)] = _Own(pool)
    return found


def call(pool, exchange):
    """`exchange(connection)` (send one command, read its reply) on this thread's connection to
    `pool`'s server. A connection that has served before may have been closed by the other end
    since (a Redis restart, an idle timeout): it is opened again and the exchange made once
    more. A timeout is raised as it is: the command may have run."""
    owned = own(pool)
    while True:
        try:
            reply = exchange(owned.connection)
        except RedisConnectionError:
            owned.connection.disconnect()
            if not owned.used:
                raise
            owned.used = False  # the next attempt opens a new connection
            continue
        owned.used = True
        return reply


def send(connection, *command):
    """One command's reply on `connection`."""
    connection.send_packed_command(connection.pack_command(*command), check_health=False)
    return connection.read_response()
