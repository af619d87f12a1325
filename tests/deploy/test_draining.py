"""Stopping a web node as congopay-web.service does (deploy/congopay-drain, its ExecStop=) while
clients keep calling through nginx in front of two nodes: the node says it is draining on
/readyz first, then finishes what it holds and exits; no GET meets an error (nginx sends it to
the other node), every POST the node took is answered, and the few it had not taken yet when it
closed its socket (nginx, which never sends a POST twice, answers 502) are made once by the
client's retry with the same Idempotency-Key.

nginx does not probe /readyz here, so it keeps sending to the draining node until the node stops;
a balancer that probes it has stopped by then, and nothing is left to retry."""

import subprocess
import threading
import urllib.error
import urllib.request
import uuid
from pathlib import Path

import pytest
from django.conf import settings

from payments.models import Charge
from tests.factories import merchant_with_keys
from tests.helpers import api_call, wait_for

pytestmark = [pytest.mark.nginx, pytest.mark.usefixtures("one_set_of_machines_at_a_time")]

DRAIN = Path(settings.BASE_DIR) / "deploy" / "congopay-drain"
CHARGE = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


def readyz(node) -> int | None:
    try:
        with urllib.request.urlopen(node.base + "/readyz", timeout=5) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def test_a_node_drains_then_stops_and_no_client_sees_it(web_node, nginx):
    key = merchant_with_keys().test_key.plaintext
    first, second = web_node("a"), web_node("b")
    proxy = nginx(first.port, second.port)
    status, charge = api_call(proxy, key, "POST", "/v1/charges", CHARGE)
    assert status == 201
    assert readyz(first) == readyz(second) == 200

    stop = threading.Event()
    gets, posts, retried = [], [], []

    def read():
        while not stop.is_set():
            gets.append(api_call(proxy, key, "GET", f"/v1/charges/{charge['id']}"))

    def write():
        """A merchant's client: a POST nginx could not hand over whole (502 in the envelope:
        the node reset a connection it had not accepted yet) is sent again with its key."""
        while not stop.is_set():
            idempotency_key = str(uuid.uuid4())
            answer = api_call(proxy, key, "POST", "/v1/charges", CHARGE, idempotency_key)
            if answer[0] == 502 and answer[1]["error"]["code"] == "service_unavailable":
                retried.append(idempotency_key)
                answer = api_call(proxy, key, "POST", "/v1/charges", CHARGE, idempotency_key)
            posts.append((idempotency_key, answer))

    clients = [threading.Thread(target=job) for job in (read, read, write, write)]
    for client in clients:
        client.start()
    try:
        wait_for(lambda: len(gets) >= 20 and len(posts) >= 20)
        # gunicorn is this process's child: reaped here once it exits (systemd, its parent when
        # deployed, does that), or the drain would wait on a zombie.
        threading.Thread(target=first.proc.wait, daemon=True).start()
        drain = subprocess.Popen(
            [str(DRAIN), str(first.proc.pid)],
            env={**first.env, "DRAIN_SECONDS": "2"},
        )
        # Draining: the node still answers, and tells the balancer to stop sending.
        wait_for(lambda: readyz(first) == 503)
        assert first.proc.poll() is None
        assert readyz(second) == 200
        # Then gunicorn is stopped, finishes what it holds, and the drain returns once it exited.
        assert drain.wait(timeout=60) == 0
        assert first.proc.poll() == 0
        answered = len(gets) + len(posts)
        wait_for(lambda: len(gets) + len(posts) >= answered + 40)
    finally:
        stop.set()
        for client in clients:
            client.join(timeout=60)

    assert [answer for answer in gets if answer[0] != 200] == []
    assert [answer for _, answer in posts if answer[0] != 201] == []
    assert len({answer[1]["id"] for _, answer in posts}) == len(posts)
    assert Charge.objects.count() == 1 + len(posts)
    assert "Handling signal: term" in first.log.read_text()
