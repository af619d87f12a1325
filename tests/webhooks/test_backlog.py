"""A backlog drains in batches: a delivery task also sends the deliveries to the same URL that
have waited BACKLOG_WAIT or more, over one connection, and records them in one transaction.
Each delivery is still sent once, attempted on its own schedule, and never lost."""

import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import time_machine
from django.utils import timezone

from tests.factories import record_event
from webhooks import services, tasks, transport
from webhooks.models import Delivery, DeliveryAttempt

pytestmark = pytest.mark.django_db


def backlog(merchant, url: str, count: int) -> list[Delivery]:
    return [record_event(merchant, url=url).deliveries.get() for _ in range(count)]


def behind():
    """The moment the workers are behind: every delivery recorded so far has waited."""
    return time_machine.travel(
        timezone.now() + timedelta(seconds=services.BACKLOG_WAIT + 1), tick=False
    )


def test_a_backlog_to_one_url_is_sent_in_one_task(merchant, receiver):
    waiting = backlog(merchant, receiver.url(), 5)
    elsewhere = record_event(merchant, url=receiver.url("/other")).deliveries.get()
    with behind():
        tasks.delivery_send(waiting[2].id)
        assert DeliveryAttempt.objects.count() == 5
        assert set(
            Delivery.objects.values_list("status", flat=True).filter(url=receiver.url())
        ) == {"succeeded"}
        assert Delivery.objects.get(pk=elsewhere.id).status == "pending"  # another URL waits
        assert all(services.delivery_send(delivery_id=d.id) is None for d in waiting)  # sent once
    sent = sorted(r.headers["webhook-id"] for r in receiver.verified())
    assert sent == sorted(d.event_id for d in waiting)


def test_deliveries_that_just_arrived_go_on_their_own(merchant, receiver):
    first, second = backlog(merchant, receiver.url(), 2)
    tasks.delivery_send(first.id)
    assert Delivery.objects.get(pk=second.id).status == "pending"
    assert len(receiver.received) == 1


def test_a_task_whose_delivery_is_held_drains_the_rest(merchant, receiver):
    held, *rest = backlog(merchant, receiver.url(), 4)
    with behind():
        assert services._claim(held.id)  # another worker is sending it
        assert services.delivery_send(delivery_id=held.id) is None  # not its own attempt…
        assert [d.status for d in Delivery.objects.filter(pk__in=[d.id for d in rest])] == [
            "succeeded"
        ] * 3  # …but the rest went
        assert Delivery.objects.get(pk=held.id).attempts == 0


def test_a_batch_stops_at_a_receiver_that_does_not_answer(merchant):
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/hooks"
    waiting = backlog(merchant, url, 4)
    with behind():
        result = services.delivery_send(delivery_id=waiting[0].id)
    assert result.status == "pending" and result.last_error == transport.NO_ANSWER
    assert DeliveryAttempt.objects.count() == 1  # the others were not tried…
    for delivery in Delivery.objects.filter(pk__in=[d.id for d in waiting[1:]]):
        # …and are free for their own tasks, due as before.
        assert (delivery.attempts, delivery.locked_until) == (0, None)
        assert delivery.next_attempt_at <= timezone.now()


def test_failed_attempts_of_a_batch_are_retried_on_their_schedule(merchant, receiver, settings):
    settings.WEBHOOK_RETRY_SCHEDULE = [60]
    receiver.then({"status": 200}, {"status": 503}, {"status": 200})
    waiting = backlog(merchant, receiver.url(), 3)
    with behind():
        services.delivery_send(delivery_id=waiting[0].id)
        now = timezone.now()
    statuses = dict(Delivery.objects.values_list("id", "status"))
    assert sorted(statuses.values()) == ["pending", "succeeded", "succeeded"]
    retried = Delivery.objects.get(status="pending")
    assert retried.attempts == 1 and retried.last_error == "HTTP 503."
    assert retried.next_attempt_at == retried.updated_at + timedelta(seconds=60)
    assert retried.locked_until is None and retried.next_attempt_at > now


class KeepAliveReceiver:
    """An HTTP/1.1 receiver that keeps connections open and counts them."""

    def __init__(self):
        self.ports: list[int] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.ports.append(self.client_address[1])
                self.send_response(200)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


def test_deliveries_to_one_address_share_a_connection(merchant):
    receiver = KeepAliveReceiver()
    try:
        waiting = backlog(merchant, receiver.url, 3)
        with behind():
            services.delivery_send(delivery_id=waiting[0].id)
        for _ in range(2):
            answer = transport.post(
                url=receiver.url, body=b"{}", headers={}, livemode=False, timeout=5,
                allow_private=True,
            )  # fmt: skip
            assert answer.ok
        assert len(receiver.ports) == 5 and len(set(receiver.ports)) == 1
    finally:
        receiver.server.shutdown()
