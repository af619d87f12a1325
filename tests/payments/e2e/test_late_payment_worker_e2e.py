"""End to end: the sandbox's 005 customer approves after the prompt's
deadline. A real Celery worker with beat on Redis fails the charge `timeout`, asks the operator
again, finds the payment made and gives it back; the merchant's receiver gets `charge.failed`
then `refund.succeeded`, both signed."""

import pytest

from payments.models import Charge, Refund
from tests.helpers import wait_for

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def test_a_late_payment_is_refunded_through_the_worker(api, receiver, celery_worker_process):
    celery_worker_process(
        beat=True,
        SANDBOX_MOBILE_MONEY_DELAY="0",
        MOBILE_MONEY_PROMPT_TIMEOUT="3",
        RECONCILIATION_BACKOFF="1",
    )
    response = api.post(
        "/v1/charges",
        {
            "amount": 5000,
            "currency": "CDF",
            "phone": "+243812345005",
            "network": "VODACOM_MPESA",
            "callback_url": receiver.url("/orders/5/payment"),
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    charge_id = response.json()["id"]

    def delivered(*types):
        got = [r.verified["type"] for r in receiver.verified()]
        return got if set(types) <= set(got) else None

    got = wait_for(lambda: delivered("charge.failed", "refund.succeeded"), timeout=60, interval=0.5)
    assert got == ["charge.failed", "refund.succeeded"]
    by_type = {r.verified["type"]: r.verified["data"]["object"] for r in receiver.verified()}
    assert (by_type["charge.failed"]["id"], by_type["charge.failed"]["failure_code"]) == (
        charge_id,
        "timeout",
    )
    refund = by_type["refund.succeeded"]
    assert (refund["charge_id"], refund["amount"], refund["reason"]) == (
        charge_id,
        5000,
        "late_payment",
    )

    body = api.get(f"/v1/charges/{charge_id}").json()
    assert (body["status"], body["failure_code"], body["amount_refunded"]) == (
        "failed",
        "timeout",
        5000,
    )
    charge = Charge.objects.get(pk=charge_id)
    assert charge.late_payment_at is not None and charge.reconcile_next_at is None
    assert Refund.objects.filter(charge_id=charge_id).count() == 1
