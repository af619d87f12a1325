"""End to end: a live M-Pesa charge through the API is paid by a real worker that consumes only
the long-call queue (PAYMENTS_LONG_QUEUE), against the faithful local M-Pesa OpenAPI."""

import pytest

from payments.models import Charge
from tests.helpers import wait_for
from webhooks.models import Event

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def test_a_worker_of_the_long_queue_alone_settles_a_live_mpesa_charge(
    mpesa, live_api, settings, celery_worker_process
):
    celery_worker_process(
        queues=settings.PAYMENTS_LONG_QUEUE,  # nothing of the default queue runs
        MPESA_BASE_URL=mpesa.url,
        MPESA_PATH_PREFIX=settings.MPESA_PATH_PREFIX,
        MPESA_API_KEY=mpesa.api_key,
        MPESA_PUBLIC_KEY=mpesa.public_key,
        MPESA_SERVICE_PROVIDER_CODE=mpesa.shortcode,
        MPESA_TIMEOUT=10,
        MPESA_SESSION_ACTIVATION=1,
        PROVIDER_HTTP_TIMEOUT=5,
        PROVIDER_HTTP_RETRIES=1,
    )
    response = live_api.post(
        "/v1/charges",
        {"amount": 1000, "currency": "USD", "phone": "+243812345678", "network": "VODACOM_MPESA"},
        format="json",
    )
    assert response.status_code == 201, response.content
    charge_id = response.json()["id"]

    wait_for(lambda: Charge.objects.get(pk=charge_id).status != "pending", timeout=30)
    charge = Charge.objects.get(pk=charge_id)
    assert charge.status == "succeeded", charge.provider_raw
    assert charge.provider_reference == mpesa.transactions[charge_id]["transaction_id"]
    assert mpesa.session_requests == 1  # the worker waited for its new session, then paid
    assert list(
        Event.objects.filter(data__object__id=charge_id).values_list("type", flat=True)
    ) == ["charge.succeeded"]
