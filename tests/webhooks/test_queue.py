"""Webhook deliveries run on their own queue (WEBHOOKS_QUEUE), and one merchant's deliveries in one
mode are attempted at most WEBHOOK_ATTEMPTS_AT_ONCE at a time: a merchant whose receiver is a
tarpit, resending in a loop, delays neither another merchant's payments nor its webhooks."""

import contextlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.conf import settings

from config.celery import app
from tests.factories import merchant_with_keys, record_event, settled_charge
from tests.helpers import api_client, procfile_commands, wait_for
from webhooks.models import Delivery, Event

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@contextlib.contextmanager
def tarpit(byte_every: float = 2.0):
    """A receiver that reads each request, then answers one byte every `byte_every` seconds (so
    no single wait of the sender ever times out), never finishing; counts its requests."""
    stop = threading.Event()
    state = {"requests": 0}
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                state["requests"] += 1
            try:
                for byte in b"HTTP/1.1 200 OK\r\nContent-Length: 999999\r\n\r\n" + b"x" * 999999:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    if stop.wait(byte_every):
                        break
            except OSError:
                pass  # the sender gave up
            self.close_connection = True

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    state["url"] = f"http://127.0.0.1:{server.server_address[1]}/hooks"
    try:
        yield state
    finally:
        stop.set()
        server.shutdown()
        server.server_close()


def queue_lengths(redis_url: str) -> dict[str, int]:
    from redis import Redis

    client = Redis.from_url(redis_url)
    try:
        queues = (app.conf.task_default_queue, settings.WEBHOOKS_QUEUE)
        return {queue: client.llen(queue) for queue in queues}
    finally:
        client.close()


def test_a_delivery_goes_to_the_webhooks_queue_not_the_default_one(merchant, receiver):
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(settings.WEBHOOKS_QUEUE)
    app.control.purge()
    record_event(merchant, url=receiver.url())  # its task is enqueued once this commits
    assert queue_lengths(settings.REDIS_URL) == {
        app.conf.task_default_queue: 0,
        settings.WEBHOOKS_QUEUE: 1,
    }


def test_a_tarpit_and_looping_resends_delay_no_other_merchants_payment_nor_webhook(
    api, receiver, celery_worker_process
):
    """Merchant A's receiver is a tarpit and A resends 50 events, each to its charge's own
    callback URL there (so no batch holds them together); merchant B's sandbox charge still
    succeeds, and its webhook arrives, as fast as they usually do. The workers run as in
    production: one on the default queue, one on the deliveries' queue, which reserves as many
    tasks a thread as the Procfile's. It starts once A's tasks are queued: with one task a
    thread, its two threads left free would take them two every two seconds (the next tick of
    a thread-pool worker whose reservations are all taken, on kombu 5.5), and B's webhook
    would arrive after a minute."""
    shop_a = merchant_with_keys()
    with tarpit() as pit:
        charges = [
            settled_charge(shop_a.merchant, callback_url=f"{pit['url']}/{i}") for i in range(50)
        ]
        # Each first delivery was answered before this test begins.
        Delivery.objects.filter(event__merchant=shop_a.merchant).update(
            status="succeeded", attempts=1
        )
        celery_worker_process(name="payments", queues=app.conf.task_default_queue)
        client_a = api_client(shop_a.test_key.plaintext)
        for charge in charges:
            [event] = Event.objects.filter(merchant=shop_a.merchant, data__object__id=charge.id)
            response = client_a.post(f"/v1/events/{event.id}/resend", format="json")
            assert response.status_code == 200, response.content
        webhooks = procfile_commands()["webhooks"]
        prefetch = webhooks[webhooks.index("--prefetch-multiplier") + 1]
        celery_worker_process(
            name="webhooks",
            queues=settings.WEBHOOKS_QUEUE,
            options=["--prefetch-multiplier", prefetch],
            WEBHOOK_ATTEMPTS_AT_ONCE="2",
        )
        wait_for(lambda: pit["requests"] >= 2)  # A's receiver holds what it may

        response = api.post(
            "/v1/charges",
            {
                "amount": 5000,
                "currency": "CDF",
                "phone": "+243812345678",
                "network": "VODACOM_MPESA",
                "callback_url": receiver.url("/orders/1/paid"),
            },
            format="json",
        )
        assert response.status_code == 201, response.content
        charge_id = response.json()["id"]

        [got] = wait_for(receiver.verified, timeout=30)
        assert got.verified["type"] == "charge.succeeded"
        assert got.verified["data"]["object"]["id"] == charge_id
        assert api.get(f"/v1/charges/{charge_id}").json()["status"] == "succeeded"
        # A's deliveries are still waiting their turn, two at a time, none lost.
        waiting = Delivery.objects.filter(
            event__merchant=shop_a.merchant, status="pending", url__startswith=pit["url"]
        )
        assert waiting.count() == 50


def queued_deliveries(redis_url: str) -> list[int]:
    """The delivery ids of the tasks waiting on the deliveries' queue."""
    import base64

    from redis import Redis

    client = Redis.from_url(redis_url)
    try:
        raw = client.lrange(settings.WEBHOOKS_QUEUE, 0, -1)
    finally:
        client.close()
    return sorted(json.loads(base64.b64decode(json.loads(m)["body"]))[0][0] for m in raw)


def test_a_delivery_left_waiting_for_a_slot_is_enqueued_when_one_is_given_back(
    merchant, receiver, settings
):
    from core import slots
    from webhooks import services

    settings.WEBHOOK_ATTEMPTS_AT_ONCE = 1
    # Two URLs, so that no batch takes both (a batch is of one URL).
    first = record_event(merchant, url=receiver.url("/a")).deliveries.get()
    second = record_event(merchant, url=receiver.url("/b")).deliveries.get()
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(settings.WEBHOOKS_QUEUE)

    held = slots.take(services.SLOT_KIND, f"{merchant.pk}:0", 1)  # another worker's attempt
    assert services.delivery_send(delivery_id=first.id) is None  # no slot: left waiting
    assert receiver.received == [] and queued_deliveries(settings.REDIS_URL) == []
    held.close()

    assert services.delivery_send(delivery_id=second.id).status == "succeeded"
    assert queued_deliveries(settings.REDIS_URL) == [first.id]  # woken by the slot given back
    assert services.delivery_send(delivery_id=first.id).status == "succeeded"
    assert len(receiver.verified()) == 2
