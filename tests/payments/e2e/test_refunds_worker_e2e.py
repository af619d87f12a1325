"""A real Celery worker on Redis settles pending refunds through the sweep."""

import pytest

from payments import tasks
from payments.models import Charge, Refund
from tests.factories import succeeded_card_charge
from tests.helpers import wait_for

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(
    "behaviour, status, refunded", [("pending", "succeeded", 700), ("pending_fail", "failed", 0)]
)
def test_worker_settles_pending_refunds(
    api, merchant, celery_worker_process, settings, behaviour, status, refunded
):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 1
    celery_worker_process(SANDBOX_MOBILE_MONEY_DELAY="1")
    charge = succeeded_card_charge(merchant, amount=1999)
    body = api.post(
        f"/v1/charges/{charge.id}/refunds",
        {"amount": 700, "metadata": {"sandbox_refund": behaviour}},
        format="json",
    ).json()
    assert body["status"] == "pending"

    def settled():
        tasks.refunds_poll_due.delay()  # what beat runs every few seconds
        return Refund.objects.get(pk=body["id"]).status != "pending"

    wait_for(settled, timeout=30, interval=1)
    assert api.get(f"/v1/refunds/{body['id']}").json()["status"] == status
    assert Charge.objects.get(pk=charge.id).amount_refunded == refunded
