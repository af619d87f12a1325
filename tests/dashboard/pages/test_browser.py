"""The payments list and a payment's page in headless Chromium at 360 px, in French and in
English: usable at that width (nothing wider than the screen), the search working with and
without JavaScript, and axe-core finding no violation."""

import pytest
from django.conf import settings

from tests.dashboard.pages.conftest import client_of, member
from tests.factories import make_charge, settle, succeeded_mobile_money_charge
from tests.helpers import axe_violations, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def signed_in_page(
    browser, base_url: str, user, *, language: str, javascript: bool = True, width: int = 360
):
    session = client_of(user).cookies[settings.SESSION_COOKIE_NAME].value
    context = browser.new_context(
        locale="fr-FR" if language == "fr" else "en-GB",
        viewport={"width": width, "height": 760},
        bypass_csp=True,
        java_script_enabled=javascript,
    )
    context.add_cookies(
        [
            {"name": settings.SESSION_COOKIE_NAME, "value": session, "url": base_url},
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": base_url},
        ]
    )
    return context, context.new_page()


def fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.mark.parametrize("language", ["fr", "en"])
def test_payments_list_and_page_at_360px(browser, live_server, shop, language, axe_source):
    user = member(shop, "owner", f"owner-{language}@example.com")
    paid = succeeded_mobile_money_charge(shop, amount=250000, description="Commande 1042 savon")
    settle(
        make_charge(shop, phone="+243971234001", network="AIRTEL_MONEY"),
        "declined",
        "insufficient_funds",
    )
    make_charge(shop, description="Loyer novembre", phone="+243821234567")
    context, page = signed_in_page(browser, live_server.url, user, language=language)
    try:
        page.goto(f"{live_server.url}/dashboard/test/payments/")
        heading = {"fr": "Paiements", "en": "Payments"}[language]
        assert page.get_by_role("heading", level=1).inner_text() == heading
        assert page.locator("tbody tr").count() == 3
        assert fits(page)
        screenshot(page, f"dashboard-payments-{language}")
        assert axe_violations(page, axe_source) == []

        page.locator("#id_q").fill("0812 345 678")  # htmx updates the results as one types
        page.locator(f'tbody tr[data-id="{paid.id}"]').wait_for()
        page.wait_for_function("document.querySelectorAll('tbody tr').length === 1")
        assert "q=0812" in page.url
        screenshot(page, f"dashboard-payments-search-{language}")

        page.locator(f'a[href$="/payments/{paid.id}/"]').click()
        page.wait_for_url(f"**/payments/{paid.id}/")
        assert fits(page)
        assert page.locator("form[data-action=refund]").count() == 1
        screenshot(page, f"dashboard-payment-{language}")
        assert axe_violations(page, axe_source) == []

        page.locator("#id_amount").fill("1000000")
        page.locator("form[data-action=refund] button[type=submit]").click()
        alert = page.get_by_role("alert").first
        alert.wait_for()
        words = {"fr": "dépasse ce qui reste remboursable", "en": "greater than what remains"}[
            language
        ]
        assert words in alert.inner_text()
        screenshot(page, f"dashboard-payment-refund-refused-{language}")
        page.locator("#id_amount").fill("500")
        page.locator("form[data-action=refund] button[type=submit]").click()
        page.locator(".messages .success").wait_for()
        assert page.locator(".timeline li").count() >= 5
        screenshot(page, f"dashboard-payment-refunded-{language}")
        assert axe_violations(page, axe_source) == []
    finally:
        context.close()


def test_the_search_works_without_javascript(browser, live_server, shop):
    user = member(shop, "viewer")
    theirs = make_charge(shop, description="Loyer novembre")
    make_charge(shop, description="Commande savon")
    context, page = signed_in_page(browser, live_server.url, user, language="fr", javascript=False)
    try:
        page.goto(f"{live_server.url}/dashboard/test/payments/")
        page.locator("#id_q").fill("loyer")
        page.get_by_role("button", name="Rechercher").click()
        page.wait_for_url("**q=loyer**")
        assert page.locator("tbody tr").count() == 1
        assert page.locator(f'tbody tr[data-id="{theirs.id}"]').count() == 1
    finally:
        context.close()
