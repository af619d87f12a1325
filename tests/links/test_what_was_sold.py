"""What a payment link sold stays with its payment: the customer reads it on the link's page,
on the checkout page and on the done page (with the amount and the references to show the
merchant); the merchant reads it on the payment's page and in the payments list. In headless
Chromium at 360 px and 1280 px, in French and English."""

import re

import pytest

from checkout.models import CheckoutSession
from dashboard.models import MerchantSettings
from links import services
from payments.models import Charge
from payments.services import charges
from tests.dashboard.pages.conftest import member
from tests.dashboard.pages.test_browser import fits, signed_in_page
from tests.helpers import screenshot, wait_for
from tests.links.factories import make_link, pay_session

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SOLD = "Sac de riz 25 kg, livraison avenue du Commerce (Gombe)"
AMOUNT = {"fr": "15 000 CDF", "en": "15,000 CDF"}


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_description_follows_the_payment(
    browser, merchant, public_base_url, settings, language, width
):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    MerchantSettings.objects.create(merchant=merchant)
    link = make_link(merchant, amount=1500000, description=SOLD)
    context = browser.new_context(
        locale="fr-FR" if language == "fr" else "en-US",
        viewport={"width": width, "height": 760},
    )
    page = context.new_page()
    try:
        page.goto(f"{public_base_url}/pay/{link.slug}")
        assert page.locator("[data-description]").inner_text() == SOLD
        page.locator("form[data-payment-link] button[type=submit]").click()
        page.locator('form[data-method="mobile_money"]').wait_for()
        assert page.locator(".summary [data-description]").inner_text() == SOLD
        assert fits(page)
        screenshot(page, f"sold-checkout-{language}-{width}")

        page.locator("#id_phone").fill("0812345678")
        page.locator('form[data-method="mobile_money"] button[type=submit]').click()
        session = CheckoutSession.objects.get(payment_link=link)
        charge = wait_for(
            lambda: Charge.objects.filter(checkout_session=session, status="pending").first()
        )
        charges.charge_request_payment(charge_id=charge.id)
        assert charges.charge_refresh(charge_id=charge.id).status == "succeeded"
        page.wait_for_url(re.compile(rf".*/pay/{link.slug}/done\?.*"))
        assert page.locator("[data-description]").inner_text() == SOLD
        assert page.locator("[data-amount]").inner_text() == AMOUNT[language]
        assert page.locator("[data-transaction]").inner_text() == charge.id
        charge.refresh_from_db()
        operator = page.locator("[data-operator-reference]")
        assert operator.inner_text() == charge.provider_reference != ""
        assert fits(page)
        screenshot(page, f"sold-done-{language}-{width}")
    finally:
        context.close()

    assert charge.description == SOLD
    owner = member(merchant, "owner", f"owner-sold-{language}-{width}@example.com")
    context, page = signed_in_page(browser, public_base_url, owner, language=language, width=width)
    try:
        page.goto(f"{public_base_url}/dashboard/test/payments/")
        row = page.locator(f'tbody tr[data-id="{charge.id}"]')
        assert SOLD in row.inner_text()
        assert row.get_by_text(charge.phone).is_visible()
        assert fits(page)
        screenshot(page, f"sold-payments-{language}-{width}")
        page.goto(f"{public_base_url}/dashboard/test/payments/{charge.id}/")
        assert SOLD in page.locator(".facts").inner_text()
    finally:
        context.close()


def test_the_done_page_shows_no_payment_of_another_link(client, merchant):
    """The done page's address names a session: one of another link shows nothing of it."""
    paid = make_link(merchant, description="Billet de concert")
    other = make_link(merchant, description=SOLD)
    session = services.link_open_session(link=paid, customer_email="", language="fr")
    charge = pay_session(session, provider_reference="MP260101.1200.A00001")
    assert charge.description == "Billet de concert"
    own = client.get(f"/pay/{paid.slug}/done?session_id={session.id}").text
    assert charge.id in own and "MP260101.1200.A00001" in own and "Billet de concert" in own
    theirs = client.get(f"/pay/{other.slug}/done?session_id={session.id}").text
    assert charge.id not in theirs and SOLD in theirs
    assert charge.id not in client.get(f"/pay/{paid.slug}/done?session_id=cs_nope").text
