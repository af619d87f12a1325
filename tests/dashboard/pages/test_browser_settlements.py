"""The settlement settings and the settlements pages in headless Chromium, at 360 px and 1280 px,
in French and in English: an owner adds a bank account, then withdraws to it, the fee shown
before confirming; nothing wider than the screen, the words people read, and axe-core finding
no violation. Screenshots are kept (tests/helpers.screenshot) to be looked at."""

import pytest

from payments.models import Settlement, SettlementAccount
from tests.dashboard.pages.conftest import member
from tests.dashboard.pages.test_browser import fits, signed_in_page
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import axe_violations, screenshot
from tests.pricing import rate

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORDS = {
    "fr": {
        "nav": "Tableau de bord",
        "settings": "Réglages",
        "tab": "Comptes de reversement",
        "added": "Compte bancaire chez Rawbank finissant par 4821 (CDF) ajouté.",
        "settlements": "Reversements",
        "withdraw": "Retirer",
        "see_fee": "Voir les frais",
        "fee": "2 500,00 CDF",
        "taken": "12 500,00 CDF",
        "confirm": "Confirmer le retrait",
        "in_transit": "En transit",
        "available": "50 000,00 CDF",
    },
    "en": {
        "nav": "Dashboard",
        "settings": "Settings",
        "tab": "Settlement accounts",
        "added": "Bank account at Rawbank ending in 4821 (CDF) added.",
        "settlements": "Settlements",
        "withdraw": "Withdraw",
        "see_fee": "See the fee",
        "fee": "2,500.00 CDF",
        "taken": "12,500.00 CDF",
        "confirm": "Confirm the withdrawal",
        "in_transit": "In transit",
        "available": "50,000.00 CDF",
    },
}


def spaced(value: str) -> str:
    return value.replace("\xa0", " ").replace("\u202f", " ")


def checked(page, axe_source: str, name: str) -> None:
    assert fits(page), f"{name} is wider than the screen"
    assert axe_violations(page, axe_source) == [], name
    screenshot(page, name)


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("language", ["fr", "en"])
def test_an_owner_adds_an_account_and_withdraws_to_it(
    browser, live_server, shop, settings, axe_source, language, width
):
    settings.PRICING_DEFAULT = [rate("settlement", currency="CDF", fixed=250000)]
    user = member(shop, "owner", f"owner-{language}-{width}@example.com")
    succeeded_mobile_money_charge(shop, amount=5_000_000)  # 50 000 CDF available
    words = WORDS[language]
    context, page = signed_in_page(browser, live_server.url, user, language=language, width=width)
    try:
        page.goto(f"{live_server.url}/dashboard/test/")
        nav = page.get_by_role("navigation", name=words["nav"])
        nav.get_by_role("link", name=words["settings"]).click()
        page.get_by_role("link", name=words["tab"]).click()
        page.wait_for_url("**/dashboard/settings/settlement/")
        checked(page, axe_source, f"dashboard-settlement-accounts-empty-{language}-{width}")

        form = page.locator("form[data-action=add-bank]")
        form.locator("#id_bank-mode").select_option("test")
        form.locator("#id_bank-bank_name").fill("Rawbank")
        form.locator("#id_bank-account_holder").fill("Boutique Gombe SARL")
        form.locator("#id_bank-account_number").fill("0501 2345 6789 4821")
        form.locator("#id_bank-swift").fill("RAWBCDKI")
        form.locator("button[type=submit]").click()
        page.locator("li[data-account]").wait_for()
        shown = spaced(page.locator("main").inner_text())
        assert words["added"] in shown and "050123456789" not in shown
        checked(page, axe_source, f"dashboard-settlement-accounts-{language}-{width}")

        page.get_by_role("navigation", name=words["nav"]).get_by_role(
            "link", name=words["settlements"]
        ).click()
        page.wait_for_url("**/dashboard/test/settlements/")
        available = page.locator('.stat[data-currency="CDF"][data-part="available"] .value')
        assert spaced(available.inner_text()) == words["available"]
        checked(page, axe_source, f"dashboard-settlements-{language}-{width}")

        page.get_by_role("link", name=words["withdraw"]).click()
        page.wait_for_url("**/dashboard/test/settlements/new/")
        checked(page, axe_source, f"dashboard-settlement-new-{language}-{width}")
        page.locator("#id_amount").fill("10 000")
        page.get_by_role("button", name=words["see_fee"]).click()
        page.locator("dl[data-quote]").wait_for()
        assert spaced(page.locator("dd[data-fee]").inner_text()) == words["fee"]
        assert spaced(page.locator("dd[data-taken]").inner_text()) == words["taken"]
        assert not Settlement.objects.exists()  # nothing taken before it is confirmed
        checked(page, axe_source, f"dashboard-settlement-quote-{language}-{width}")

        page.get_by_role("button", name=words["confirm"]).click()
        page.wait_for_url("**/dashboard/test/settlements/stl_*/")
        settlement = Settlement.objects.get()
        assert settlement.account == SettlementAccount.objects.get()
        assert words["in_transit"] in page.locator("h1").inner_text()
        checked(page, axe_source, f"dashboard-settlement-{language}-{width}")

        page.locator('a[href$="/dashboard/test/settlements/"]').last.click()
        page.locator(f'tbody tr[data-id="{settlement.id}"]').wait_for()
        checked(page, axe_source, f"dashboard-settlements-listed-{language}-{width}")
    finally:
        context.close()
