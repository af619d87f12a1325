"""`payments.broker.publish` writes, on the Redis broker, the very message Celery's apply_async
sends for the same task: both are pushed to a Redis database of their own and compared field by
field, only the fresh ids apart. A Celery upgrade that changes its message fails here."""

import base64
import json
import uuid
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

import pytest
import redis
from django.conf import settings
from django.utils import timezone
from kombu.exceptions import OperationalError

from config.celery import app
from payments import broker, tasks
from webhooks import tasks as webhook_tasks

pytestmark = pytest.mark.redis

FRESH_IDS = (("headers", "id"), ("headers", "root_id"), ("properties", "correlation_id"))


def _own_database(url: str) -> str:
    """The test server's Redis, another database: no worker of another test reads its queues."""
    parts = urlsplit(url)
    number = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(number + 8) % 16}"))


@pytest.fixture
def broker_db():
    url = app.conf.broker_url
    own = _own_database(settings.REDIS_URL)
    client = redis.Redis.from_url(own)
    client.flushdb()

    def reconnect(broker_url: str) -> None:
        app.conf.broker_url = broker_url
        app._pool = None
        app.amqp._producer_pool = None

    reconnect(own)
    try:
        yield client
    finally:
        reconnect(url)
        client.flushdb()


def _pushed(client, queue: str) -> dict:
    (raw,) = client.lrange(queue, 0, -1)
    client.delete(queue)
    message = json.loads(raw)
    ids = {}
    for part, name in FRESH_IDS:
        ids[name] = message[part].pop(name)
    ids["delivery_tag"] = message["properties"].pop("delivery_tag")
    return message, ids


@pytest.mark.parametrize(
    ("task", "args", "queue", "eta"),
    [
        (tasks.charge_request_payment, ("ch_publish",), None, None),
        (tasks.charge_request_payment, ("ch_publish",), settings.PAYMENTS_LONG_QUEUE, None),
        (tasks.charge_refresh, ("ch_publish",), None, timezone.now() + timedelta(seconds=90)),
        (webhook_tasks.delivery_send, (42,), None, timezone.now() + timedelta(seconds=5)),
        (tasks.payout_send, ("po_publish",), None, None),
    ],
    ids=["default-queue", "long-queue", "eta", "integer-argument", "payout"],
)
def test_publish_writes_the_message_celery_sends(broker_db, task, args, queue, eta):
    assert broker._route(app.conf) is not None, "the Redis set-up must take the direct path"
    expected_queue = queue or app.conf.task_default_queue

    task.apply_async(args, queue=queue, eta=eta)
    celery_message, celery_ids = _pushed(broker_db, expected_queue)
    broker.publish(task, args, queue=queue, eta=eta)
    own_message, own_ids = _pushed(broker_db, expected_queue)

    assert own_message == celery_message
    assert own_ids["id"] == own_ids["root_id"] == own_ids["correlation_id"]
    assert own_ids["id"] != celery_ids["id"]
    for fresh in (own_ids["id"], own_ids["delivery_tag"]):  # written as str(uuid.uuid4()) is
        parsed = uuid.UUID(fresh)
        assert (str(parsed), parsed.version, parsed.variant) == (fresh, 4, uuid.RFC_4122)
    body = json.loads(base64.b64decode(own_message["body"]))
    assert body[0] == list(args)


def test_each_publish_is_a_new_task(broker_db):
    for _ in range(3):
        broker.publish(tasks.refund_send, ("re_publish",))
    raw = broker_db.lrange(app.conf.task_default_queue, 0, -1)
    ids = {json.loads(message)["headers"]["id"] for message in raw}
    tags = {json.loads(message)["properties"]["delivery_tag"] for message in raw}
    assert len(ids) == len(tags) == 3


def test_an_unreachable_broker_raises_as_celery_does(broker_db):
    from tests.helpers import BROKER_NOBODY

    app.conf.broker_url = BROKER_NOBODY
    with pytest.raises(OperationalError, match="127.0.0.1:9"):
        broker.publish(tasks.refund_send, ("re_publish",))


def test_a_connection_closed_by_redis_is_opened_again_and_the_task_pushed_once(broker_db):
    from payments import redis_thread

    queue = app.conf.task_default_queue
    broker.publish(tasks.refund_send, ("re_before",))
    client, _ = broker._route(app.conf)
    connection = redis_thread.own(client.connection_pool).connection
    connection.send_command("CLIENT", "ID")
    broker_db.client_kill_filter(_id=connection.read_response())  # closed by the other end
    broker.publish(tasks.refund_send, ("re_after",))
    pushed = [json.loads(raw)["headers"]["argsrepr"] for raw in broker_db.lrange(queue, 0, -1)]
    assert pushed == ["('re_after',)", "('re_before',)"]


def test_a_change_of_celerys_settings_while_running_is_followed(broker_db):
    """The route is kept per configuration: tasks run eagerly once app.conf says so, and a new
    broker URL gets a client of its own."""
    route = broker._route(app.conf)
    assert route is not None
    app.conf.task_always_eager = True
    try:
        assert broker._route(app.conf) is None
    finally:
        app.conf.task_always_eager = False
    assert broker._route(app.conf) is not None
    url = app.conf.broker_url
    app.conf.broker_url = _own_database(url)
    try:
        other = broker._route(app.conf)
        assert other is not None and other[0] is not route[0]
        assert (
            other[0].connection_pool.connection_kwargs["db"]
            != (route[0].connection_pool.connection_kwargs["db"])
        )
    finally:
        app.conf.broker_url = url


@pytest.mark.parametrize(
    ("parent_id", "root_id"),
    [("sweep-task-id", "beat-root-id"), ('sweep "task" \\ id', "beat\nroot")],
    ids=["celery-ids", "ids-json-must-escape"],
)
def test_a_task_enqueued_by_a_running_task_is_its_child(broker_db, parent_id, root_id):
    from celery._state import _task_stack

    sweep = tasks.charges_poll_due
    sweep.push_request(id=parent_id, root_id=root_id, called_directly=False)
    _task_stack.push(sweep)
    try:
        tasks.charge_refresh.apply_async(("ch_child",))
        celery_message, _ = _pushed(broker_db, app.conf.task_default_queue)
        broker.publish(tasks.charge_refresh, ("ch_child",))
        raw = broker_db.lrange(app.conf.task_default_queue, 0, -1)
        own_message, own_ids = _pushed(broker_db, app.conf.task_default_queue)
    finally:
        _task_stack.pop()
        sweep.pop_request()
    assert own_message == celery_message
    headers = json.loads(raw[0])["headers"]
    assert (headers["root_id"], headers["parent_id"]) == (root_id, parent_id)


@pytest.mark.parametrize(
    "args",
    [
        ("ch_0U6x9",),
        (42,),
        (1, "po_1"),
        (-7, 10**30),
        ("x" * 150,),
        ("x" * 1500,),
        ("a'b",),
        ('a"b',),
        ("a\\b",),
        ("line\nbreak",),
        ("tab\t",),
        ("\x7f",),
        ("é",),
        ("ch_1", None),
        (1.5,),
        (True,),
        ([1, 2],),
        (),
    ],
)
def test_the_arguments_are_shown_as_celery_shows_them(args):
    from celery.utils.saferepr import saferepr

    maxsize = app.amqp.argsrepr_maxsize
    assert broker._argsrepr(args, maxsize) == saferepr(args, maxsize)
