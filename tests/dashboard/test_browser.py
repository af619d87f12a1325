"""The dashboard in headless Chromium at 360 px, against the live test server: sign up, the
verification mail through a real SMTP server, its link, sign out, sign in, the home page; in
French, then English by the switcher; axe-core finds no accessibility violation on the way."""

import re

import pytest

from tests.dashboard.conftest import PASSWORD, body_of
from tests.helpers import axe_violations, screenshot, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def fits(page) -> bool:
    """Nothing wider than the screen: no sideways scrolling at 360 px."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_sign_up_confirm_sign_in_and_home_at_360_px(
    browser, axe_source, live_server, public_base_url, smtp_sink, settings
):
    settings.ACCOUNT_RATE_LIMITS = False
    context = browser.new_context(
        locale="fr-FR", viewport={"width": 360, "height": 780}, bypass_csp=True
    )
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/accounts/signup/")
        assert page.locator("html").get_attribute("lang") == "fr"
        assert axe_violations(page, axe_source) == []
        assert fits(page)
        screenshot(page, "dashboard-signup-fr")
        page.fill("input[name=email]", "mado@example.com")
        page.fill("input[name=business_name]", "Mado Couture")
        page.fill("input[name=password1]", PASSWORD)
        page.fill("input[name=password2]", PASSWORD)
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(re.compile(r".*/accounts/confirm-email/$"))
        screenshot(page, "dashboard-verification-sent-fr")

        message = wait_for(lambda: smtp_sink.messages and smtp_sink.messages[0])
        (link,) = re.findall(r"https?://\S+/accounts/confirm-email/\S+/", body_of(message))
        page.goto(link)
        assert axe_violations(page, axe_source) == []
        screenshot(page, "dashboard-confirm-fr")
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(re.compile(r".*/dashboard/test/$"))

        page.locator("header form[action='/accounts/logout/'] button").click()
        page.wait_for_load_state()
        page.goto(f"{live_server.url}/accounts/login/")
        assert axe_violations(page, axe_source) == []
        assert fits(page)
        screenshot(page, "dashboard-login-fr")
        page.fill("input[name=login]", "mado@example.com")
        page.fill("input[name=password]", PASSWORD)
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(re.compile(r".*/dashboard/test/$"))
        assert page.get_by_role("heading", name="Accueil").is_visible()
        assert "Mado Couture" in page.locator("header").inner_text()
        assert page.get_by_text("Mode test : aucun argent réel ne circule.").is_visible()
        assert axe_violations(page, axe_source) == []
        assert fits(page)
        screenshot(page, "dashboard-home-fr")

        page.locator("form.lang button[value=en]").click()
        page.get_by_role("heading", name="Home").wait_for()
        assert page.locator("html").get_attribute("lang") == "en"
        assert page.get_by_text("Test mode: no real money moves.").is_visible()
        assert axe_violations(page, axe_source) == []
        assert fits(page)
        screenshot(page, "dashboard-home-en")
        page.goto(f"{live_server.url}/dashboard/settings/team/")  # the choice is remembered
        assert page.get_by_role("heading", name="Settings").is_visible()
        assert axe_violations(page, axe_source) == []
        assert fits(page)
        screenshot(page, "dashboard-team-en")
        page.goto(f"{live_server.url}/accounts/2fa/")  # allauth's pages in the same layout
        assert page.locator("nav.nav").is_visible()
        assert axe_violations(page, axe_source) == []
        assert fits(page)
        screenshot(page, "dashboard-two-factor-en")
    finally:
        context.close()
