"""A real Celery worker on Redis settles sandbox mobile money charges (contract §10)."""

import pytest

from payments.models import Charge
from tests.conftest import wait_for

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(
    "phone, network, status, failure_code",
    [
        ("+243812345678", "VODACOM_MPESA", "succeeded", None),
        ("+243971234001", "AIRTEL_MONEY", "declined", "insufficient_funds"),
        ("+243851234002", "ORANGE_MONEY", "declined", "customer_rejected"),
        ("+243821234004", "VODACOM_MPESA", "failed", "provider_error"),
    ],
)
def test_sandbox_outcome_arrives_through_the_worker(
    api, celery_worker_process, phone, network, status, failure_code
):
    celery_worker_process(SANDBOX_MOBILE_MONEY_DELAY="1")
    response = api.post(
        "/v1/charges",
        {"amount": 5000, "currency": "CDF", "phone": phone, "network": network},
        format="json",
    )
    assert response.status_code == 201
    charge_id = response.json()["id"]
    wait_for(lambda: Charge.objects.get(pk=charge_id).status != "pending", timeout=30)
    body = api.get(f"/v1/charges/{charge_id}").json()
    assert body["status"] == status
    assert body["failure_code"] == failure_code
