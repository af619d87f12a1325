"""End to end: API → sandbox operator → real Celery worker on Redis → signed webhook received."""

import pytest

from tests.conftest import wait_for

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def test_charge_succeeded_reaches_the_callback_url_verified(api, receiver, celery_worker_process):
    celery_worker_process(SANDBOX_MOBILE_MONEY_DELAY="0")
    response = api.post(
        "/v1/charges",
        {
            "amount": 5000,
            "currency": "CDF",
            "phone": "+243812345678",
            "network": "VODACOM_MPESA",
            "callback_url": receiver.url("/orders/17/paid"),
        },
        format="json",
    )
    assert response.status_code == 201
    charge_id = response.json()["id"]

    [got] = wait_for(receiver.verified, timeout=30)
    assert got.path == "/orders/17/paid"
    assert got.verified["type"] == "charge.succeeded"
    assert got.verified["data"]["object"]["id"] == charge_id
    assert got.verified["data"]["object"]["status"] == "succeeded"
    event = api.get(f"/v1/events/{got.headers['webhook-id']}").json()
    assert event == got.verified
