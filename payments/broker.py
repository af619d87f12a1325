"""The broker's transports.

The embedded broker (kombu's SQLAlchemy transport on a SQLite file): its tables and queues are
created once, before the worker processes start. Started together on an empty broker file, the
workers would otherwise race to create them (`table kombu_queue already exists`).

Redis: kombu's transport, with a publish that does not build a new client each time, and
`publish`, which puts a task on its queue with one LPUSH of the message Celery would send.
"""

import base64
import json
import os
import threading
from collections.abc import Iterable
from datetime import datetime

from kombu import Connection
from kombu.exceptions import OperationalError
from kombu.transport import redis as redis_transport
from redis import exceptions as redis_errors

from payments import redis_thread

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


# --- Publishing a task ---------------------------------------------------------------------------

REDIS_TRANSPORT = f"{__name__}:RedisTransport"
_NO_ROUTE = object()  # remembered: this broker is published to by Celery
_routes: dict[tuple, tuple] = {}  # (pid, configuration) -> (redis client, default queue)
_routes_lock = threading.Lock()


def publish(task, args: tuple, *, queue: str | None = None, eta: datetime | None = None) -> None:
    """Put `task(*args)` on `queue` (the default queue when None), to run at `eta` (an aware
    datetime) or at once. On the Redis broker this is one LPUSH of the message Celery's
    apply_async sends (protocol 2, JSON; tests/payments/platform/test_broker_publish.py compares
    the two), without the work Celery spends building it (more than a whole bare request).
    Anywhere else (the embedded broker, tasks run eagerly) Celery sends it. Like apply_async,
    it raises kombu's OperationalError when the broker cannot be reached."""
    route = _route(_statics(task)[1].conf)
    if route is None:
        task.apply_async(args, queue=queue, eta=eta)
        return
    client, default_queue = route
    queue = queue or default_queue
    message = task_message(task, args, queue=queue, eta=eta)
    try:  # on this thread's own connection to the broker (payments.redis_thread)
        redis_thread.call(
            client.connection_pool,
            lambda connection: redis_thread.send(connection, "LPUSH", queue, message),
        )
    except (redis_errors.ConnectionError, redis_errors.TimeoutError) as exc:
        raise OperationalError(str(exc)) from exc  # as kombu reports a broker it cannot reach


def _route(conf) -> tuple | None:
    """The Redis client and default queue of the broker, when its messages are the ones
    `task_message` writes (our transport, no key prefix or priority queues, no routes, JSON over
    protocol 2) and tasks are not run eagerly; None otherwise. Worked out once per process and
    configuration: reading one of Celery's settings costs up to 40 µs, so the answer is kept
    under what can change while the process runs (a setting changed on `app.conf`, which Celery
    keeps in `conf.changes`, and the CELERY_BROKER_URL that `conf.broker_url` reads first)."""
    changes = conf.changes
    key = (
        os.getpid(),
        id(conf),
        changes.get("broker_url"),
        changes.get("task_always_eager"),
        os.environ.get("CELERY_BROKER_URL"),
    )
    route = _routes.get(key)
    if route is not None:
        return None if route is _NO_ROUTE else route
    url = str(conf.broker_url)
    options = conf.broker_transport_options or {}
    direct = (
        conf.broker_transport == REDIS_TRANSPORT
        and url.startswith(("redis://", "rediss://"))
        and not options.get("global_keyprefix")
        and not options.get("priority_steps")
        and not conf.task_routes
        and conf.task_protocol == 2
        and conf.task_serializer == "json"
        and conf.task_default_priority is None
        and not conf.task_always_eager
    )
    route = _NO_ROUTE
    if direct:
        from redis import Redis

        client = Redis.from_url(
            url,
            socket_connect_timeout=options.get("socket_connect_timeout"),
            socket_timeout=options.get("socket_timeout"),
        )
        route = (client, conf.task_default_queue)
    with _routes_lock:
        route = _routes.setdefault(key, route)
    return None if route is _NO_ROUTE else route


# What a task's messages share, worked out once per task and process (through Celery's proxies,
# reading a task's name and limits costs more than the rest of the message).
_task_statics: dict[tuple[int, int], tuple] = {}


def _statics(task) -> tuple:
    key = (id(task), os.getpid())
    statics = _task_statics.get(key)
    if statics is None:
        from celery.utils.nodenames import anon_nodename

        app = task.app
        statics = _task_statics[key] = (
            task,  # kept, so that its id is not reused
            app,
            task.name,
            [task.time_limit, task.soft_time_limit],
            task.ignore_result,
            anon_nodename(),
            app.amqp.argsrepr_maxsize,
        )
    return statics


def task_message(task, args: tuple, *, queue: str, eta: datetime | None = None) -> str:
    """The JSON that kombu's Redis transport pushes for `task.apply_async(args, queue=queue,
    eta=eta)`: Celery's message (headers, properties, a base64 JSON body) in kombu's envelope.
    Everything but its ids, body, ETA and argsrepr is the same for every message of a task to a
    queue from a thread, so it is written out once (_template) and those values set in it."""
    statics = _statics(task)
    app = statics[1]
    task_id, delivery_tag = _uuid4s()
    root_id, parent_id = f'"{task_id}"', "null"  # JSON
    parent = app.current_worker_task  # a task enqueued by a running task is its child
    if parent is not None:  # ids of Celery's, or given by whoever sent the parent: escaped
        root_id = json.dumps(parent.request.root_id or parent.request.id)
        parent_id = json.dumps(parent.request.id)
    reply_to = app.thread_oid
    key = (id(task), os.getpid(), queue, reply_to)
    parts = _templates.get(key)
    if parts is None:
        parts = _templates[key] = _template(statics, queue, reply_to)
    body = json.dumps(
        [list(args), {}, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}]
    )
    values = {  # JSON: our own ids, base64 and ISO 8601 need no escaping
        "body": f'"{base64.b64encode(body.encode()).decode()}"',
        "id": f'"{task_id}"',
        "eta": f'"{eta.isoformat()}"' if eta is not None else "null",
        "root_id": root_id,
        "parent_id": parent_id,
        "argsrepr": json.dumps(_argsrepr(args, statics[6])),
        "delivery_tag": f'"{delivery_tag}"',
    }
    pieces = [parts[0]]
    for name, text in parts[1:]:
        pieces.append(values[name])
        pieces.append(text)
    return "".join(pieces)


def _uuid4s() -> tuple[str, str]:
    """Two random UUIDs (version 4), as str(uuid.uuid4()) writes them, from one read of random
    bytes."""
    raw = bytearray(os.urandom(32))
    texts = []
    for at in (0, 16):
        raw[at + 6] = raw[at + 6] & 0x0F | 0x40  # version 4
        raw[at + 8] = raw[at + 8] & 0x3F | 0x80  # RFC 4122 variant
        h = raw[at : at + 16].hex()
        texts.append(f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}")
    return texts[0], texts[1]


# Per task, process, queue and thread: the message with its variable values left out, as
# [text, (name, text), (name, text), …] (each name's JSON value goes before its text).
_templates: dict[tuple, list] = {}
_MARK = "\u0001"  # marks where a value goes; JSON writes it as an escape no value contains


def _template(statics: tuple, queue: str, reply_to: str) -> list:
    _task, _app, name, timelimit, ignore_result, origin, _maxsize = statics

    def slot(field: str) -> str:
        return f"{_MARK}{field}{_MARK}"

    envelope = {
        "body": slot("body"),
        "content-encoding": "utf-8",
        "content-type": "application/json",
        "headers": {
            "lang": "py",
            "task": name,
            "id": slot("id"),
            "shadow": None,
            "eta": slot("eta"),
            "expires": None,
            "group": None,
            "group_index": None,
            "retries": 0,
            "timelimit": timelimit,
            "root_id": slot("root_id"),
            "parent_id": slot("parent_id"),
            "argsrepr": slot("argsrepr"),
            "kwargsrepr": "{}",
            "origin": origin,
            "ignore_result": ignore_result,
            "replaced_task_nesting": 0,
            "stamped_headers": None,
            "stamps": {},
        },
        "properties": {
            "correlation_id": slot("id"),
            "reply_to": reply_to,
            "delivery_mode": 2,
            "delivery_info": {"exchange": "", "routing_key": queue},
            "priority": 0,
            "body_encoding": "base64",
            "delivery_tag": slot("delivery_tag"),
        },
    }
    mark = json.dumps(_MARK)[1:-1]  # how JSON writes the mark
    pieces = json.dumps(envelope).split(f'"{mark}')
    parts = [pieces[0]]
    for piece in pieces[1:]:
        field, _, text = piece.partition(f'{mark}"')
        parts.append((field, text))
    return parts


def _argsrepr(args: tuple, maxsize: int) -> str:
    """Celery's saferepr of the arguments: for ids and numbers (every task of ours) it is their
    repr, which costs a tenth."""
    if all(type(arg) is int or (type(arg) is str and _plain(arg)) for arg in args):
        text = repr(args)
        if len(text) < min(maxsize, 200):
            return text
    from celery.utils.saferepr import saferepr

    return saferepr(args, maxsize)


def _plain(text: str) -> bool:
    """Printable ASCII without quote or backslash: text whose repr saferepr leaves as it is."""
    return text.isascii() and text.isprintable() and "'" not in text and "\\" not in text
