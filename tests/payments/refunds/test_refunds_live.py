"""Live refunds reach the provider only after their reservation is committed (by a task)."""

import pytest

from payments.models import Refund
from payments.services.refunds import refund_create, refund_refresh, refund_send
from sandbox.models import SandboxTransaction
from tests.factories import make_charge, settle

pytestmark = pytest.mark.django_db

SANDBOX_AS_LIVE = {
    "test": {},
    "live": {
        "VODACOM_MPESA": "sandbox.providers.SandboxMobileMoney",
        "card": "sandbox.providers.SandboxCard",
    },
}


@pytest.fixture
def live_charge(merchant, settings):
    merchant.live_approved = True
    merchant.save()
    settings.PAYMENT_PROVIDERS = SANDBOX_AS_LIVE
    charge = make_charge(merchant, livemode=True, amount=10000, currency="USD")
    return settle(charge, "succeeded", provider_reference="MP1")


def test_live_refund_answers_pending_and_is_sent_once_after_commit(
    live_api, live_charge, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = live_api.post(
            f"/v1/charges/{live_charge.id}/refunds", {"amount": 4000}, format="json"
        )
    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["status"], body["livemode"]) == ("pending", True)
    refunds = SandboxTransaction.objects.filter(kind="refund")
    assert not refunds.exists()  # the provider is not asked inside the request's transaction
    # After the commit: the refund's send task, and the balance's checkpoint when one is due.
    assert len(callbacks) == 2
    live_charge.refresh_from_db()
    assert live_charge.amount_refunded == 4000  # reserved already

    refund = refund_send(refund_id=body["id"])
    refund_send(refund_id=body["id"])  # a duplicated task asks nothing more
    assert refund.status == "succeeded"
    assert refunds.count() == 1 and refunds.get().request_count == 1


def test_a_live_refund_whose_task_was_lost_is_sent_by_the_status_check(live_charge):
    refund = refund_create(charge=live_charge, amount=10000)
    assert refund.status == "pending" and refund.provider_requested_at is None
    refund_refresh(refund_id=refund.id)
    assert Refund.objects.get(pk=refund.id).status == "succeeded"
