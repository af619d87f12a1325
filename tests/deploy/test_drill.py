"""A drill of the service on several machines: the test nginx in front of two web nodes (two
gunicorns, each an upstream server), two Celery workers, one with beat, on the real Redis broker
and PostgreSQL, and a merchant's receiver verifying every webhook with `standardwebhooks`.

Clients (threads) make a few hundred sandbox mobile money charges, then refunds and payouts, each
with an Idempotency-Key sent through nginx and then again to each node directly. Midway one web
node and one worker are killed with SIGKILL. Afterwards: every charge, refund and payout is final,
each key made one object, every event reached the receiver verified and none twice with another
content, and `manage.py checkledger` finds the books in order."""

import json
import os
import subprocess
import sys
import threading
import time
import uuid
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.conf import settings

from config.celery import app
from payments.models import Charge, Payout, Refund
from payments.services import charges as charge_services
from payments.services import queues
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import api_call, database_url_for_subprocess, set_webhook_url, wait_for
from webhooks import services as webhook_services
from webhooks.models import Event

pytestmark = [
    pytest.mark.nginx,
    pytest.mark.redis,
    pytest.mark.postgres,
    pytest.mark.usefixtures("one_set_of_machines_at_a_time"),
]

CHARGES = 200
REFUNDS = 40
PAYOUTS = 40
CLIENTS = 8
PHONE = "+243812345678"  # the sandbox approves this customer at once
FINAL = {"succeeded", "failed", "declined"}

# The environment of every process of the drill, as every machine reads the same congopay.env.
# A worker killed after it claimed a prompt and before the operator recorded it (the SIGKILL lands
# there about one run in three) leaves a charge the operator never heard of: its status checks
# answer pending ("no such transaction yet"), and it is never sent again, since the operator may
# have got it. It fails `timeout` at its deadline (docs/guides/charges.md),
# MOBILE_MONEY_PROMPT_TIMEOUT after the prompt was handed over (five minutes by default), and is
# reconciled afterwards. A short deadline keeps that within the drill; it is still longer than
# UNSENT_GRACE, so that a prompt lost before it was claimed is sent again, not failed unsent.
# Short operator timeouts put the first check of a prompt lost mid-request
# (PROVIDER_HTTP_TIMEOUT + MPESA_TIMEOUT after the claim) within that deadline.
SERVICE_ENV = {
    "SANDBOX_MOBILE_MONEY_DELAY": "0",
    "PROVIDER_HTTP_TIMEOUT": "2",
    "MPESA_TIMEOUT": "2",
    "MOBILE_MONEY_PROMPT_TIMEOUT": str(2 * charge_services.UNSENT_GRACE),
}
# The drill shares its two CPUs with whatever else runs (other test runs in CI): every bound
# below is what the service needs on an idle machine, times this.
LOADED = 2


def sweep_interval(task: str) -> float:
    """Seconds between two runs of a periodic job (config/celery.py's beat schedule)."""
    (interval,) = (
        entry["schedule"] for entry in app.conf.beat_schedule.values() if entry["task"] == task
    )
    return interval


def settled_within() -> float:
    """How long a charge, refund or payout of the drill may stay pending, by the service's own
    settings: a prompt lost unsent is sent again by a sweep after UNSENT_GRACE; a prompt handed
    over fails by its deadline at the latest, checked by a sweep; and a check enqueued to the
    killed worker is claimed again by a sweep CLAIM_PUSH later."""
    sweep = sweep_interval("payments.tasks.charges_poll_due")
    deadline = float(SERVICE_ENV["MOBILE_MONEY_PROMPT_TIMEOUT"])
    return LOADED * (charge_services.UNSENT_GRACE + deadline + queues.CLAIM_PUSH + 2 * sweep)


def delivered_within() -> float:
    """How long an event may wait for its webhook: a delivery the killed worker held is free once
    its hold is over, overdue SWEEP_GRACE after it was due, and enqueued by the next sweep."""
    hold = (
        webhook_services.BATCH_SECONDS + 2 * settings.WEBHOOK_TIMEOUT + webhook_services.HOLD_MARGIN
    )
    sweep = sweep_interval("webhooks.tasks.deliveries_sweep")
    return LOADED * (hold + webhook_services.SWEEP_GRACE + sweep)


class Client:
    """A merchant's API client: each POST with a key of its own, retried with that key while the
    service cannot answer (a node lost mid-request: 502 from nginx, or 409 while the lost
    request's key is still held; or lost once nginx had passed its answer's head on, which
    leaves the answer cut off, status None), then replayed with the same key to each node
    directly. A GET cut off that way is asked again; one answered with an error is kept."""

    def __init__(self, key: str, proxy: str, nodes: list):
        self.key, self.proxy, self.nodes = key, proxy, nodes
        self.gets_failed = []
        self.replays = []

    def call(self, base, method, path, body=None, idempotency_key=""):
        return api_call(base, self.key, method, path, body, idempotency_key)

    def post(self, path: str, body: dict) -> dict:
        idempotency_key = str(uuid.uuid4())
        for _ in range(50):
            status, answer = self.call(self.proxy, "POST", path, body, idempotency_key)
            if status in (200, 201):
                break
            assert status in (None, 409, 502, 503), (status, answer)
            time.sleep(0.2)
        else:
            raise AssertionError(f"{path} never answered: {status} {answer}")
        for node in self.nodes:
            again = self.call(node.base, "POST", path, body, idempotency_key)
            if again[0] is None and node.lost.is_set():
                continue  # the node killed meanwhile
            self.replays.append((idempotency_key, answer["id"], again))
        return answer

    def get(self, path: str) -> dict:
        status, answer = self.call(self.proxy, "GET", path)
        if status is None:  # cut off by the node's loss: what any client does, once
            status, answer = self.call(self.proxy, "GET", path)
        if status != 200:
            self.gets_failed.append((path, status, answer))
        return answer


def checkledger() -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "checkledger"],
        cwd=settings.BASE_DIR,
        env={
            **os.environ,
            "DATABASE_URL": database_url_for_subprocess(),
            "REDIS_URL": settings.REDIS_URL,
        },
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_service_on_two_nodes_and_two_workers_survives_losing_one_of_each(
    merchant_keys, receiver, web_node, nginx, celery_worker_process
):
    merchant = merchant_keys.merchant
    set_webhook_url(merchant, receiver.url("/hooks"))
    # What the payouts draw on, beside the charges' own: paid here, before any worker could take
    # its tasks (its event's delivery is then the webhook sweep's).
    succeeded_mobile_money_charge(merchant, amount=10_000_000)
    consumed = ",".join(
        (
            app.conf.task_default_queue,
            settings.PERIODIC_QUEUE,
            settings.WEBHOOKS_QUEUE,
            settings.PAYMENTS_LONG_QUEUE,
        )
    )
    celery_worker_process(name="first", beat=True, queues=consumed, **SERVICE_ENV)
    doomed_worker = celery_worker_process(name="second", queues=consumed, **SERVICE_ENV)
    nodes = [web_node(name, **SERVICE_ENV) for name in ("a", "b")]
    proxy = nginx(*(node.port for node in nodes))
    client = Client(merchant_keys.test_key.plaintext, proxy, nodes)
    done = []
    lock = threading.Lock()

    def charge(number: int) -> dict:
        made = client.post(
            "/v1/charges",
            {
                "amount": 250_000 + 100 * number,
                "currency": "CDF",
                "phone": PHONE,
                "network": "VODACOM_MPESA",
            },
        )
        client.get(f"/v1/charges/{made['id']}")
        with lock:
            done.append(made["id"])
            if len(done) == CHARGES // 2:  # midway: a machine of each kind lost
                nodes[0].kill()
                doomed_worker.kill()
        return made

    with ThreadPoolExecutor(CLIENTS) as pool:
        charges = list(pool.map(charge, range(CHARGES)))
    assert nodes[0].proc.poll() is not None and doomed_worker.poll() is not None

    def final(model, ids):
        def settled():
            return not model.objects.filter(id__in=ids).exclude(status__in=FINAL).exists()

        try:
            wait_for(settled, timeout=settled_within(), interval=0.5)
        except AssertionError:
            left = model.objects.filter(id__in=ids).exclude(status__in=FINAL)
            fields = ["id", "status", "created_at", "next_check_at", "provider_raw"]
            if model is Charge:
                fields += ["provider_requested_at", "check_count"]
            raise AssertionError(
                f"{left.count()} {model.__name__} not final: {list(left.values(*fields)[:3])}"
            ) from None

    charge_ids = [made["id"] for made in charges]
    final(Charge, charge_ids)
    paid = list(
        Charge.objects.filter(id__in=charge_ids, status="succeeded").values_list("id", flat=True)
    )
    assert len(paid) >= REFUNDS

    def refund(charge_id: str) -> dict:
        return client.post(f"/v1/charges/{charge_id}/refunds", {"amount": 50_000})

    def payout(number: int) -> dict:
        return client.post(
            "/v1/payouts",
            {
                "amount": 100_000 + 100 * number,
                "currency": "CDF",
                "phone": PHONE,
                "network": "VODACOM_MPESA",
            },
        )

    with ThreadPoolExecutor(CLIENTS) as pool:
        refunds = list(pool.map(refund, paid[:REFUNDS]))
        payouts = list(pool.map(payout, range(PAYOUTS)))
    refund_ids = [made["id"] for made in refunds]
    payout_ids = [made["id"] for made in payouts]
    final(Refund, refund_ids)
    final(Payout, payout_ids)

    # No GET met an error, though a node went away under them.
    assert client.gets_failed == []
    # One object per key: the same key, on either node, answers the same object.
    assert [replay for replay in client.replays if replay[2][0] not in (200, 201)] == []
    assert [replay for replay in client.replays if replay[2][1]["id"] != replay[1]] == []
    assert len({replay[0] for replay in client.replays}) == CHARGES + REFUNDS + PAYOUTS
    assert Charge.objects.filter(merchant=merchant).count() == 1 + CHARGES
    assert Refund.objects.filter(merchant=merchant).count() == len(set(refund_ids)) == REFUNDS
    assert Payout.objects.filter(merchant=merchant).count() == len(set(payout_ids)) == PAYOUTS

    # Every event reached the receiver, verified, at least once; a second delivery of one is the
    # same event, word for word.
    events = dict(Event.objects.filter(merchant=merchant, livemode=False).values_list("id", "type"))
    assert len(events) >= CHARGES + REFUNDS + PAYOUTS

    def delivered():
        got = defaultdict(set)
        for hook in receiver.verified():
            got[hook.headers["webhook-id"]].add(hook.body)
        return set(events) <= set(got) and got

    got = wait_for(delivered, timeout=delivered_within(), interval=0.5)
    assert [hook for hook in receiver.received if hook.verified is None] == []
    assert {event_id: len(bodies) for event_id, bodies in got.items() if len(bodies) > 1} == {}
    assert set(got) == set(events)
    for event_id, (body,) in got.items():
        assert json.loads(body)["type"] == events[event_id]

    books = checkledger()
    assert books.returncode == 0, books.stdout + books.stderr
