"""Idempotency-Key under concurrent requests, against a live server on PostgreSQL."""

import threading

import pytest
import requests
from django.db import connection, transaction
from django.urls import include, path
from rest_framework.response import Response

from config.celery import app as celery_app
from core.api import idempotency
from core.api.base import ApiView
from payments.models import Charge, IdempotencyRecord
from payments.services import charges
from sandbox.models import SandboxTransaction
from webhooks.services import endpoint_set_url

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

MM = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
THREADS = 16

started = threading.Event()
release = threading.Event()


class SlowWebhookEndpoint(ApiView):
    """Sets the webhook URL, then waits: a first request that is still running."""

    def post(self, request):
        endpoint_set_url(merchant=self.merchant, livemode=self.livemode, url=request.data["url"])
        started.set()
        release.wait(timeout=15)
        return Response({"url": request.data["url"]})


urlpatterns = [path("v1/slow", SlowWebhookEndpoint.as_view()), path("", include("config.urls"))]


def headers(merchant_keys, key: str) -> dict:
    return {
        "Authorization": f"Bearer {merchant_keys.test_key.plaintext}",
        "Idempotency-Key": key,
    }


@pytest.fixture
def tasks_inline():
    """Run the tasks started on commit (the prompt) in the request's thread, so the test sees
    every request the sandbox operator received once the answers are in."""
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = False


def concurrently(send, count: int = THREADS) -> list[requests.Response]:
    """`count` threads released together, each sending one request; their answers."""
    barrier = threading.Barrier(count)
    answers: list[requests.Response] = []
    lock = threading.Lock()

    def run():
        with requests.Session() as session:
            barrier.wait(timeout=30)
            answer = send(session)
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=run) for _ in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(answers) == count
    return answers


def test_simultaneous_retries_of_an_answered_key_all_get_the_replay(
    live_server, merchant_keys, tasks_inline
):
    url = f"{live_server.url}/v1/charges"
    first = requests.post(url, json=MM, headers=headers(merchant_keys, "answered-1"), timeout=30)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers

    answers = concurrently(
        lambda session: session.post(
            url, json=MM, headers=headers(merchant_keys, "answered-1"), timeout=30
        )
    )
    assert [a.status_code for a in answers] == [201] * THREADS, [a.text for a in answers]
    for answer in answers:
        assert answer.headers["Idempotent-Replayed"] == "true"
        assert answer.content == first.content
    charge_id = first.json()["id"]
    assert Charge.objects.count() == 1
    assert SandboxTransaction.objects.get(reference=charge_id).request_count == 1
    assert IdempotencyRecord.objects.filter(key="answered-1").count() == 1


def test_a_replay_is_answered_even_while_the_key_is_claimed(live_server, merchant_keys):
    """The stored answer is read before the key is claimed: a replay never waits for, nor is
    refused by, whoever holds the key at that moment."""
    url = f"{live_server.url}/v1/charges"
    first = requests.post(url, json=MM, headers=headers(merchant_keys, "held-1"), timeout=30)
    assert first.status_code == 201
    scope = idempotency.Scope(
        merchant=merchant_keys.merchant,
        livemode=False,
        key="held-1",
        method="POST",
        path="/v1/charges",
        fingerprint=idempotency.fingerprint(MM),
    )
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", [idempotency._lock_id(scope)])
        assert cursor.fetchone() == (True,)
        replay = requests.post(url, json=MM, headers=headers(merchant_keys, "held-1"), timeout=30)
        reused = requests.post(
            url, json={**MM, "amount": 260000}, headers=headers(merchant_keys, "held-1"), timeout=30
        )
    assert replay.status_code == 201, replay.text
    assert replay.headers["Idempotent-Replayed"] == "true" and replay.content == first.content
    assert reused.status_code == 400
    assert reused.json()["error"]["code"] == "idempotency_key_reused"
    assert Charge.objects.count() == 1


def test_simultaneous_requests_with_one_key_make_one_charge_and_one_prompt(
    live_server, merchant_keys, tasks_inline
):
    answers = concurrently(
        lambda session: session.post(
            f"{live_server.url}/v1/charges",
            json=MM,
            headers=headers(merchant_keys, "race-1"),
            timeout=30,
        )
    )
    originals = [
        a for a in answers if a.status_code == 201 and "Idempotent-Replayed" not in a.headers
    ]
    assert len(originals) == 1, [(a.status_code, a.text) for a in answers]
    original = originals[0]
    for answer in answers:
        if answer is original:
            continue
        if answer.status_code == 409:
            error = answer.json()["error"]
            assert (error["type"], error["code"]) == ("idempotency_error", "idempotency_key_in_use")
        else:
            assert answer.status_code == 201, answer.text
            assert answer.headers["Idempotent-Replayed"] == "true"
            assert answer.content == original.content
        assert answer.headers["Request-Id"] != original.headers["Request-Id"]

    charge_id = original.json()["id"]
    assert Charge.objects.count() == 1
    assert SandboxTransaction.objects.count() == 1
    assert SandboxTransaction.objects.get(reference=charge_id).request_count == 1

    # Every retry after the race is a replay; the operator is still asked once.
    replay = requests.post(
        f"{live_server.url}/v1/charges", json=MM, headers=headers(merchant_keys, "race-1")
    )
    assert replay.content == original.content and replay.headers["Idempotent-Replayed"] == "true"
    charges.charge_request_payment(charge_id=charge_id)
    assert SandboxTransaction.objects.get(reference=charge_id).request_count == 1
    assert Charge.objects.count() == 1


def test_a_request_still_running_makes_the_same_key_answer_409(
    live_server, merchant_keys, settings
):
    settings.ROOT_URLCONF = __name__
    started.clear()
    release.clear()
    url = f"{live_server.url}/v1/slow"
    body = {"url": "https://a.example.cd/hooks"}
    first: list[requests.Response] = []
    runner = threading.Thread(
        target=lambda: first.append(
            requests.post(url, json=body, headers=headers(merchant_keys, "slow-1"), timeout=30)
        )
    )
    runner.start()
    try:
        assert started.wait(timeout=15)
        racing = concurrently(
            lambda session: session.post(
                url, json=body, headers=headers(merchant_keys, "slow-1"), timeout=30
            )
        )
        other_body = requests.post(
            url,
            json={"url": "https://b.example.cd/hooks"},
            headers=headers(merchant_keys, "slow-1"),
            timeout=30,
        )
        for busy in [*racing, other_body]:
            assert busy.status_code == 409, busy.text
            error = busy.json()["error"]
            assert (error["type"], error["code"]) == ("idempotency_error", "idempotency_key_in_use")
            assert error["request_id"] == busy.headers["Request-Id"]
            assert "Idempotent-Replayed" not in busy.headers
        assert not IdempotencyRecord.objects.filter(key="slow-1").exists()
        # Another key is not held up by this one.
        other = requests.post(
            f"{live_server.url}/v1/charges",
            json=MM,
            headers=headers(merchant_keys, "slow-2"),
            timeout=30,
        )
        assert other.status_code == 201
    finally:
        release.set()
        runner.join(timeout=30)

    assert first[0].status_code == 200 and "Idempotent-Replayed" not in first[0].headers
    replay = requests.post(url, json=body, headers=headers(merchant_keys, "slow-1"), timeout=30)
    assert replay.status_code == 200 and replay.headers["Idempotent-Replayed"] == "true"
    assert replay.content == first[0].content
    assert IdempotencyRecord.objects.filter(key="slow-1").count() == 1
