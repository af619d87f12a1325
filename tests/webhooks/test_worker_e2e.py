"""End to end: API → sandbox operator → real Celery worker on Redis → signed webhook received."""

import pytest

from tests.helpers import wait_for

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


def test_a_test_mode_worker_refuses_the_cloud_metadata_address(merchant, celery_worker_process):
    """The production worker, in test mode, never POSTs to 169.254.169.254 (nor stores its
    answer), however the URL reached the delivery."""
    from tests.factories import record_event
    from webhooks.models import DeliveryAttempt

    celery_worker_process()
    event = record_event(merchant, url="http://169.254.169.254/latest/meta-data/")
    delivery = event.deliveries.get()

    def refused():
        delivery.refresh_from_db()
        return delivery.status == "failed" and delivery

    wait_for(refused, timeout=30)
    [attempt] = DeliveryAttempt.objects.filter(delivery=delivery)
    assert attempt.status_code is None and attempt.response_body == ""
    assert attempt.error.startswith("Refused destination:") and "metadata" in attempt.error
