"""A real Celery worker (with beat) on Redis settles every sandbox mobile money outcome,
including the unanswered prompt that fails after MOBILE_MONEY_PROMPT_TIMEOUT."""

import pytest

from payments.models import Charge
from tests.helpers import wait_for
from webhooks.models import Event

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]

OUTCOMES = [
    ("+243812345678", "VODACOM_MPESA", "succeeded", None),
    ("+243971234001", "AIRTEL_MONEY", "declined", "insufficient_funds"),
    ("+243851234002", "ORANGE_MONEY", "declined", "customer_rejected"),
    ("+243991234003", "AIRTEL_MONEY", "failed", "timeout"),
    ("+243821234004", "VODACOM_MPESA", "failed", "provider_error"),
]


def test_every_sandbox_outcome_arrives_through_the_worker(api, celery_worker_process):
    # One worker for all five: the answer after 1 s, the unanswered prompt given up after 3 s.
    # The request task schedules the first status check; later ones come from the beat sweep.
    celery_worker_process(
        beat=True, SANDBOX_MOBILE_MONEY_DELAY="1", MOBILE_MONEY_PROMPT_TIMEOUT="3"
    )
    created = {}
    for phone, network, status, failure_code in OUTCOMES:
        response = api.post(
            "/v1/charges",
            {"amount": 5000, "currency": "CDF", "phone": phone, "network": network},
            format="json",
        )
        assert response.status_code == 201, response.content
        created[response.json()["id"]] = (status, failure_code)

    wait_for(lambda: not Charge.objects.filter(pk__in=created, status="pending").exists(), 40)
    for charge_id, (status, failure_code) in created.items():
        body = api.get(f"/v1/charges/{charge_id}").json()
        assert (body["status"], body["failure_code"]) == (status, failure_code), body
        assert list(
            Event.objects.filter(data__object__id=charge_id).values_list("type", flat=True)
        ) == [f"charge.{status}"]
