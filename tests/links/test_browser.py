"""The payment link's pages in headless Chromium at 360 px, in French and English: axe-core
finds no accessibility violation, nothing is wider than the screen, the first load weighs at
most 15 KB with the page's Content-Security-Policy in force, and the pay button leads to the
checkout page. Screenshots are kept in tests/artifacts/."""

import pytest

from checkout.models import CheckoutSession
from tests.factories import with_support_contact
from tests.helpers import axe_violations, screenshot
from tests.links.factories import make_link

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIRST_LOAD_LIMIT = 15_000  # bytes: HTML, stylesheet and script together, as checkout's pages
LANGUAGES = {"fr": "fr-FR", "en": "en-US"}
LIMITS_SAID = {  # 10000 to 500000 minor units, as the customer reads them
    "fr": "Saisissez un montant de 100 CDF à 5 000 CDF.",
    "en": "Enter an amount from 100 CDF to 5,000 CDF.",
}


def open_page(browser, language: str, *, bypass_csp: bool = True):
    context = browser.new_context(
        locale=LANGUAGES[language], viewport={"width": 360, "height": 740}, bypass_csp=bypass_csp
    )
    return context, context.new_page()


def check(page, axe_source: str, name: str) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= 360, name
    screenshot(page, f"link-{name}")
    assert axe_violations(page, axe_source) == [], name


@pytest.fixture
def links(merchant):
    with_support_contact(merchant, email="aide@boutique.cd", phone="+243 81 234 5678")
    return {
        "fixed": make_link(merchant, amount=1500000, description="Sac de riz 25 kg"),
        "custom": make_link(
            merchant, custom_amount=True, description="Don pour l’école Saint-Joseph"
        ),
        "gone": _inactive(merchant),
    }


def _inactive(merchant):
    link = make_link(merchant, description="Billet de concert")
    link.active = False
    link.save()
    return link


@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("name", ["fixed", "custom", "gone"])
def test_pages_are_accessible_narrow_and_light(
    browser, axe_source, links, public_base_url, name, language
):
    url = f"{public_base_url}/pay/{links[name].slug}"
    context, page = open_page(browser, language)
    try:
        response = page.goto(url)
        assert response.status == (410 if name == "gone" else 200)
        assert page.evaluate("document.documentElement.lang") == language
        check(page, axe_source, f"{name}-{language}")
    finally:
        context.close()

    context, page = open_page(browser, language, bypass_csp=False)
    try:
        requests, refused = [], []
        page.on("requestfinished", lambda request: requests.append(request))
        page.on(
            "console",
            lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
        )
        page.goto(url, wait_until="load")
        page.wait_for_timeout(200)
        loaded = [r for r in requests if r.resource_type in ("document", "stylesheet", "script")]
        assert len(requests) == len(loaded), [r.url for r in requests]
        weight = sum(r.sizes()["responseBodySize"] for r in loaded)
        assert weight <= FIRST_LOAD_LIMIT, (name, weight)
        assert refused == [], refused
    finally:
        context.close()


@pytest.mark.parametrize("language", ["fr", "en"])
def test_custom_amount_error_then_pay_leads_to_the_checkout_page(
    browser, axe_source, links, public_base_url, settings, language
):
    settings.NETWORK_LIMITS = {
        network: {"CDF": (10000, 500000), "USD": (100, 100000)}
        for network in settings.MOBILE_MONEY_NETWORKS
    }
    link = links["custom"]
    context, page = open_page(browser, language)
    try:
        page.goto(f"{public_base_url}/pay/{link.slug}")
        page.locator("#id_amount").fill("6000")
        page.locator("#id_email").fill("client@example.cd")
        page.locator("form[data-payment-link] button[type=submit]").click()
        page.locator("#amount-error").wait_for()
        assert page.locator("#amount-error").inner_text() == LIMITS_SAID[language]
        assert page.locator("#id_amount").get_attribute("aria-invalid") == "true"
        check(page, axe_source, f"custom-error-{language}")
        page.locator("#id_amount").fill("2500")
        page.locator("form[data-payment-link] button[type=submit]").click()
        page.locator('form[data-method="mobile_money"]').wait_for()
        session = CheckoutSession.objects.get(payment_link=link)
        assert page.url == f"{public_base_url}/pay/{session.id}"
        assert session.amount == 250000 and session.customer_email == "client@example.cd"
        assert session.customer_language == language
        screenshot(page, f"link-custom-checkout-{language}")
    finally:
        context.close()


def test_the_page_works_without_javascript(browser, links, public_base_url):
    context = browser.new_context(
        locale="fr-FR", viewport={"width": 360, "height": 740}, java_script_enabled=False
    )
    page = context.new_page()
    try:
        page.goto(f"{public_base_url}/pay/{links['fixed'].slug}")
        page.locator("form[data-payment-link] button[type=submit]").click()
        page.locator('form[data-method="mobile_money"]').wait_for()
        assert CheckoutSession.objects.filter(payment_link=links["fixed"]).count() == 1
    finally:
        context.close()
