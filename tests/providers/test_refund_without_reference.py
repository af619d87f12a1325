"""A refund of a charge whose operator id we never learnt (the M-Pesa reversal, the Airtel refund
and the card credit all need it) is not sent and never failed by a guess: it stays pending with a
reason for staff on its admin page, the status check leaves it to them, and staff's "paid back /
not paid back" action settles it."""

import pytest

from payments.providers.base import STAFF_REASON, ProviderOutcome
from payments.services import charges, refunds
from tests.factories import charge_via_api
from tests.helpers import admin_url

pytestmark = pytest.mark.django_db

CHARGES = {
    "mpesa": {"amount": 1000, "currency": "USD", "phone": "+243812345678",
              "network": "VODACOM_MPESA"},
    "airtel": {"amount": 250000, "currency": "CDF", "phone": "+243971234567",
               "network": "AIRTEL_MONEY"},
    "cybersource": {"amount": 1999, "currency": "USD", "payment_method": "card"},
}  # fmt: skip


@pytest.mark.parametrize("succeeded", [True, False])
@pytest.mark.parametrize("adapter", list(CHARGES))
def test_the_refund_waits_for_staff(request, adapter, succeeded, live_api, staff):
    fake = request.getfixturevalue(adapter)
    charge = charge_via_api(live_api, **CHARGES[adapter])
    # Settled without an operator id (e.g. by staff, or a status answer that carried none).
    charges.charge_apply_outcome(charge_id=charge.id, outcome=ProviderOutcome(status="succeeded"))
    refund_id = live_api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json").json()["id"]
    calls_before = len(fake.log)

    refund = refunds.refund_send(refund_id=refund_id)
    assert (refund.status, refund.failure_code) == ("pending", "")
    assert "unknown" in refund.provider_raw[-1][STAFF_REASON]
    refund = refunds.refund_refresh(refund_id=refund_id)  # the poller: nothing to ask
    assert refund.status == "pending" and refund.next_check_at is not None
    assert len(fake.log) == calls_before  # nothing was sent or asked
    assert refund.charge.amount_refunded == charge.amount

    page = staff.get(admin_url(refund)).content.decode()
    assert "En attente de l’équipe parce que" in page  # French admin
    assert "the refund was not sent" in page
    english = staff.get(admin_url(refund), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Waiting for staff because" in english

    settled = refunds.refund_resolve(refund_id=refund_id, succeeded=succeeded, staff="staff")
    assert settled.status == ("succeeded" if succeeded else "failed")
    settled.charge.refresh_from_db()
    assert settled.charge.amount_refunded == (charge.amount if succeeded else 0)
