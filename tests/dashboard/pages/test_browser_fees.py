"""The price plan, the balance and a payment's page with fees in headless Chromium, at 360 px and 1280 px, in French
and in English: nothing wider than the screen, the figures people read, and axe-core finding no
violation. Screenshots are kept (tests/helpers.screenshot) to be looked at."""

import pytest

from tests.dashboard.pages.conftest import member
from tests.dashboard.pages.test_browser import fits, signed_in_page
from tests.dashboard.pages.test_fees import own_plan
from tests.factories import sent_payout, succeeded_card_charge, succeeded_mobile_money_charge
from tests.helpers import axe_violations, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORDS = {
    "fr": {
        "plan": "Encaissements Airtel Money en CDF : 2,50 % par paiement, disponible 7 jours après "
        "le paiement",
        "pending": "En attente · CDF",
        "outgoing": "En cours de sortie",
        "fee": "2 500,00 CDF (2,50 %)",
    },
    "en": {
        "plan": "Airtel Money collections in CDF: 2.50 % per payment, available 7 days after "
        "the payment",
        "pending": "Pending · CDF",
        "outgoing": "On its way out",
        "fee": "2,500.00 CDF (2.50 %)",
    },
}


def spaced(value: str) -> str:
    return value.replace("\xa0", " ").replace("\u202f", " ")


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_price_plan_and_the_balance_in_a_browser(
    browser, live_server, shop, settings, axe_source, language, width
):
    user = member(shop, "viewer", f"viewer-{language}-{width}@example.com")
    succeeded_mobile_money_charge(shop, amount=5_000_000)  # before fees: available
    own_plan(shop, settings)
    pending = succeeded_mobile_money_charge(
        shop, amount=10_000_000, phone="+243971234567", network="AIRTEL_MONEY"
    )  # pending for 7 days
    succeeded_card_charge(shop, amount=1999)
    sent_payout(shop, amount=10000)
    words = WORDS[language]
    context, page = signed_in_page(browser, live_server.url, user, language=language, width=width)
    try:
        page.goto(f"{live_server.url}/dashboard/test/")
        page.get_by_role(
            "navigation", name={"fr": "Tableau de bord", "en": "Dashboard"}[language]
        ).get_by_role("link", name={"fr": "Réglages", "en": "Settings"}[language]).click()
        page.wait_for_url("**/dashboard/settings/pricing/")
        assert words["plan"] in spaced(page.locator("main").inner_text())
        assert page.locator("section.plan").count() == 3
        assert fits(page)
        assert axe_violations(page, axe_source) == []
        screenshot(page, f"dashboard-pricing-{language}-{width}")

        page.goto(f"{live_server.url}/dashboard/test/balance/")
        shown = spaced(page.locator("main").inner_text())
        assert words["pending"] in shown and words["outgoing"] in shown
        assert page.locator("tbody tr").count() == 4
        assert page.locator("tbody .badge.pending").count() == 1  # the Airtel Money payment
        assert fits(page)
        assert axe_violations(page, axe_source) == []
        screenshot(page, f"dashboard-balance-fees-{language}-{width}")

        page.locator(f'a[href$="/payments/{pending.id}/"]').click()
        page.wait_for_url(f"**/payments/{pending.id}/")
        assert words["fee"] in spaced(page.locator("dd[data-fee]").inner_text())
        assert fits(page)
        assert axe_violations(page, axe_source) == []
        screenshot(page, f"dashboard-payment-fees-{language}-{width}")
    finally:
        context.close()
