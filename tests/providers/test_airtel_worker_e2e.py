"""End to end: live API → real Celery worker on Redis → Airtel (faithful fake) → the customer
answers → Airtel's signed callback to our live server → the worker's enquiry settles the charge."""

import pytest

from payments.models import Charge
from tests.helpers import wait_for
from webhooks.models import Event

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]

CALLBACK = "/providers/airtel_money/callback"


def test_airtel_callback_settles_the_charge_through_the_worker(
    airtel, live_api, live_server, settings, celery_worker_process
):
    airtel.callback_url = f"{live_server.url}{CALLBACK}"  # Airtel's app settings
    airtel.enquiries_before_answer = 99  # TIP until the customer answers
    # No beat: after the first scheduled enquiry, only the callback can trigger another one.
    celery_worker_process(
        AIRTEL_BASE_URL=airtel.url,
        AIRTEL_CLIENT_ID=airtel.client_id,
        AIRTEL_CLIENT_SECRET=airtel.client_secret,
        AIRTEL_CALLBACK_HASH_KEY=airtel.callback_hash_key,
        PROVIDER_HTTP_TIMEOUT=5,
        PROVIDER_HTTP_RETRIES=1,
        PUBLIC_BASE_URL=live_server.url,
    )
    response = live_api.post(
        "/v1/charges",
        {"amount": 250000, "currency": "CDF", "phone": "+243971234567", "network": "AIRTEL_MONEY"},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["livemode"] is True
    charge_id = response.json()["id"]

    # The worker sends the prompt, then its first scheduled enquiry finds it still in progress.
    wait_for(lambda: airtel.enquiries(charge_id) == 1, timeout=30)
    assert airtel.transactions[charge_id]["msisdn"] == "971234567"
    assert Charge.objects.get(pk=charge_id).status == "pending"

    answer = airtel.approve(charge_id)  # the customer enters the PIN; Airtel calls back
    assert answer.status_code == 200 and answer.json() == {"received": True}

    wait_for(lambda: Charge.objects.get(pk=charge_id).status != "pending", timeout=30)
    body = live_api.get(f"/v1/charges/{charge_id}").json()
    assert body["status"] == "succeeded", body
    assert airtel.enquiries(charge_id) == 2
    charge = Charge.objects.get(pk=charge_id)
    assert charge.provider_reference == airtel.transactions[charge_id]["airtel_money_id"]
    assert list(
        Event.objects.filter(data__object__id=charge_id).values_list("type", flat=True)
    ) == ["charge.succeeded"]
