"""Staff settle a refund the operator confirmed, in a real browser: select, confirm, done."""

import pytest

from payments.models import Refund
from payments.services import refunds
from tests.factories import staff_user, succeeded_mobile_money_charge
from tests.helpers import admin_sign_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_staff_mark_a_pending_refund_failed_after_confirming(page, live_server, merchant):
    staff_user("staff", password="pw-123-long")
    charge = succeeded_mobile_money_charge(merchant, amount=250000)
    refund = refunds.refund_create(
        charge=charge, amount=20000, metadata={"sandbox_refund": "pending"}
    )
    page.set_viewport_size({"width": 1280, "height": 800})
    admin_sign_in(page, live_server.url, "/admin/payments/refund/")
    page.check(f"input[name=_selected_action][value={refund.id}]")
    page.select_option("select[name=action]", "mark_failed")
    page.click("button[name=index]")

    page.wait_for_selector("text=Confirmez ce que le prestataire vous a dit")
    assert refund.id in page.content()
    screenshot(page, "refund-admin-confirm")
    assert Refund.objects.get(pk=refund.id).status == "pending"
    page.click("input[value='Oui, ils n’ont pas été remboursés']")

    page.wait_for_selector(f"text=Remboursement {refund.id} : échoué.")
    refund.refresh_from_db()
    assert (refund.status, refund.failure_code) == ("failed", "provider_error")
    charge.refresh_from_db()
    assert charge.amount_refunded == 0
