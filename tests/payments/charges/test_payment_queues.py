"""A live M-Pesa payment call waits for the customer's PIN: it is published on its own queue,
every other payment request on the default one. Read back from the real broker."""

import logging
from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone
from kombu import Queue
from kombu.exceptions import OperationalError

from config.celery import app
from payments import tasks
from payments.models import Charge
from payments.services import charges, queues
from tests.helpers import BROKER_NOBODY, broker_down


def published_on(queue_name: str) -> list[str]:
    """The charge ids of the payment requests waiting on a queue (taken off it)."""
    ids = []
    with app.connection_for_read() as connection:
        queue = Queue(queue_name, routing_key=queue_name)
        with connection.SimpleQueue(queue) as simple:
            while True:
                try:
                    message = simple.get(timeout=0.5)
                except simple.Empty:
                    return ids
                if message.headers.get("task") == "payments.tasks.charge_request_payment":
                    ids.append(message.headers["argsrepr"].strip("(),' "))
                message.ack()


@pytest.mark.parametrize(
    "livemode, network, queue",
    [
        (True, "VODACOM_MPESA", "payments-long"),
        (False, "VODACOM_MPESA", None),
        (True, "AIRTEL_MONEY", None),
        (True, "ORANGE_MONEY", None),
    ],
)
def test_only_live_mpesa_payment_calls_go_to_the_long_queue(livemode, network, queue):
    assert queues.payment_request_queue(livemode=livemode, network=network) == queue


def test_the_long_queue_really_carries_live_mpesa_requests(settings):
    settings.PAYMENTS_LONG_QUEUE = "payments-long-test"
    published_on("payments-long-test")  # start from an empty queue
    live = Charge(id="ch_livempesa00000000000001", livemode=True, network="VODACOM_MPESA")
    test = Charge(id="ch_testmpesa00000000000001", livemode=False, network="VODACOM_MPESA")
    queues.charge_request_payment_enqueue(charge=live)
    queues.charge_request_payment_enqueue(charge=test)
    assert published_on("payments-long-test") == [live.id]


@pytest.mark.django_db
def test_a_charge_made_while_the_broker_is_down_stands_and_is_sent_later(
    api, eager_tasks, django_capture_on_commit_callbacks, caplog
):
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/v1/charges",
            {"amount": 1000, "currency": "CDF", "phone": "+243971234567",
             "network": "AIRTEL_MONEY"},
            format="json",
        )  # fmt: skip
    assert response.status_code == 201, response.content
    charge = Charge.objects.get(pk=response.json()["id"])
    assert charge.status == "pending" and charge.provider_requested_at is None
    # The publish was tried once the charge committed, and failed on the unreachable broker:
    # that one error (kombu's, naming the broker's address) and nothing else went wrong.
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    [failed] = errors
    assert "in on_commit()" in failed.getMessage()
    assert type(failed.exc_info[1]) is OperationalError
    assert BROKER_NOBODY.removeprefix("redis://").removesuffix("/0") in str(failed.exc_info[1])

    # The broker is back: the sweep finds the charge no task has sent and sends its prompt.
    with time_machine.travel(timezone.now() + timedelta(seconds=charges.UNSENT_GRACE + 1)):
        tasks.charges_poll_due()
    charge.refresh_from_db()
    assert charge.provider_requested_at is not None
