"""Idempotency-Key under concurrent requests (contract §8), against a live server on PostgreSQL."""

import threading

import pytest
import requests
from django.urls import include, path
from rest_framework.response import Response

from config.celery import app as celery_app
from payments import services
from payments.api.base import ApiView
from payments.models import Charge, IdempotencyRecord, SandboxTransaction

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

MM = {"amount": 250000, "currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
THREADS = 16

started = threading.Event()
release = threading.Event()


class SlowWebhookEndpoint(ApiView):
    """Sets the webhook URL, then waits: a first request that is still running."""

    def post(self, request):
        merchant = services.merchant_set_webhook_url(
            merchant=self.merchant, url=request.data["url"]
        )
        started.set()
        release.wait(timeout=15)
        return Response({"url": merchant.webhook_url})


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


def test_simultaneous_requests_with_one_key_make_one_charge_and_one_prompt(
    live_server, merchant_keys, tasks_inline
):
    barrier = threading.Barrier(THREADS)
    answers: list[requests.Response] = []
    lock = threading.Lock()

    def send():
        with requests.Session() as session:
            barrier.wait(timeout=30)
            answer = session.post(
                f"{live_server.url}/v1/charges",
                json=MM,
                headers=headers(merchant_keys, "race-1"),
                timeout=30,
            )
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=send) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert len(answers) == THREADS
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
    services.charge_request_payment(charge_id=charge_id)
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
        for other_body in (body, {"url": "https://b.example.cd/hooks"}):
            busy = requests.post(
                url, json=other_body, headers=headers(merchant_keys, "slow-1"), timeout=30
            )
            assert busy.status_code == 409
            error = busy.json()["error"]
            assert (error["type"], error["code"]) == ("idempotency_error", "idempotency_key_in_use")
            assert error["request_id"] == busy.headers["Request-Id"]
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
