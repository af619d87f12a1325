"""Staff in a real browser: the payouts, one they settle with what the operator confirmed, its
ledger rows, and the balance on the merchant's page."""

import pytest

from payments.models import Payout
from tests.factories import (
    payout_waiting_for_staff,
    sent_payout,
    staff_user,
    succeeded_mobile_money_charge,
)
from tests.helpers import admin_sign_in, admin_url, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_staff_settle_a_payout_and_read_the_ledger_and_balance(
    page, live_server, merchant, settings
):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3600  # the sandbox operator answers pending for now
    staff_user("staff")
    succeeded_mobile_money_charge(merchant, amount=250000)
    sent_payout(merchant, amount=10000)
    waiting = payout_waiting_for_staff(merchant, amount=40000, phone="+243812345700")

    page.set_viewport_size({"width": 1280, "height": 800})
    admin_sign_in(page, live_server.url, "/admin/payments/payout/")
    page.wait_for_selector(f"text={waiting.id}")
    assert "en attente de l’équipe" in page.inner_text(f"tr:has(a:text-is('{waiting.id}'))")
    screenshot(page, "payout-admin-list")

    page.check(f"input[name=_selected_action][value={waiting.id}]")
    page.select_option("select[name=action]", "mark_succeeded")
    page.click("button[name=index]")
    page.wait_for_selector("text=Confirmez ce que l’opérateur vous a dit")
    assert "400,00 CDF" in page.content()
    screenshot(page, "payout-admin-confirm")
    assert Payout.objects.get(pk=waiting.id).status == "pending"
    page.click("input[value='Oui, l’opérateur les a payés']")
    page.wait_for_selector(f"text=Versement {waiting.id} : réussi.")
    assert Payout.objects.get(pk=waiting.id).status == "succeeded"

    page.click(f"a:text-is('{waiting.id}')")
    page.wait_for_selector("text=Réponses de l’opérateur")  # the French admin's label
    assert "resolved_by" in page.content()
    screenshot(page, "payout-admin-detail")

    page.goto(f"{live_server.url}{admin_url(merchant)}")
    page.wait_for_selector("text=écritures du grand livre")
    balance = page.inner_text("table.balance")
    assert "2\xa0000,00 CDF" in balance  # 2,500.00 received, 400.00 and 100.00 paid out
    screenshot(page, "merchant-admin-balance")

    page.click("table.balance tr:first-child >> text=écritures du grand livre")
    page.wait_for_selector(f"text={waiting.id}")
    assert "-400,00 CDF" in page.content()
    screenshot(page, "ledger-admin-list")
    page.click(f"a:text-is('{waiting.id}')")
    page.wait_for_selector("text=Réponses de l’opérateur")  # the French admin's label
    assert page.url.endswith(admin_url(waiting))
