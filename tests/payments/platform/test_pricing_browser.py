"""The price plan and fees earned pages in headless Chromium at 1280 px, in French: staff add a
rate of the merchant's own from the form and read the plan in force; the report fits the window.
Screenshots land in tests/artifacts/."""

import pytest

from payments.models import PriceRate
from tests.factories import make_charge, merchant_with_keys, staff_user
from tests.helpers import admin_sign_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PLAN = [
    {"kind": "charge", "payment_method": "mobile_money", "currency": "CDF", "rate_bp": 300},
    {"kind": "charge", "payment_method": "card", "currency": "USD", "rate_bp": 390, "fixed": 30},
    {"kind": "payout", "payment_method": "mobile_money", "currency": "CDF", "rate_bp": 150},
    {"kind": "settlement", "currency": "CDF", "rate_bp": 0, "fixed": 2_500_000},
]


def fits_the_window(page) -> bool:
    return page.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"
    )


def test_staff_add_a_rate_and_read_the_plan_and_the_fees_earned(page, live_server, settings):
    settings.PRICING_DEFAULT = PLAN
    merchant = merchant_with_keys(name="Pharmacie Lumumba et Fils de Kinshasa-Gombe").merchant
    make_charge(merchant, amount=2_500_000_00, status="succeeded")
    staff_user("staff", password="pw-123-long")
    page.set_viewport_size({"width": 1280, "height": 800})
    pricing = f"/admin/payments/merchant/{merchant.pk}/pricing/"
    admin_sign_in(page, live_server.url, pricing)
    assert page.locator("table[data-plan] tbody tr").count() == 4
    page.select_option("#id_rates-0-kind", "charge")
    page.select_option("#id_rates-0-payment_method", "mobile_money")
    page.select_option("#id_rates-0-network", "AIRTEL_MONEY")
    page.select_option("#id_rates-0-currency", "CDF")
    page.fill("#id_rates-0-rate_bp", "250")
    page.fill("#id_rates-0-available_after_days", "2")
    page.click("input[type=submit]")
    page.wait_for_url(f"{live_server.url}{pricing}")
    assert "1 tarif de la grille a changé." in page.inner_text(".messagelist")
    own = page.locator("table[data-plan] tbody tr[data-own]")
    assert own.count() == 1
    assert "2,50\xa0%" in own.inner_text() and "disponible après 2 jours" in own.inner_text()
    assert PriceRate.objects.filter(merchant=merchant, network="AIRTEL_MONEY").exists()
    assert fits_the_window(page)
    screenshot(page, "admin-price-plan")

    page.goto(f"{live_server.url}/admin/payments/ledgerentry/fees-earned/?mode=test")
    assert page.locator("table[data-totals] tbody tr").count() == 1
    assert fits_the_window(page)
    screenshot(page, "admin-fees-earned")
