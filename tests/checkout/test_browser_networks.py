"""The hosted page in headless Chromium with a network closed by staff: it is named, not offered;
a local number of it typed the way customers type is refused with the reason; a local number of
an open network is read, charged, and the waiting page names its operator."""

import pytest

from checkout import services
from payments.models import Charge
from tests.factories import close_network, make_session
from tests.helpers import screenshot, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MM_FORM = 'form[data-method="mobile_money"]'


def test_a_closed_network_and_a_typed_local_number(page, merchant, public_base_url, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    close_network("ORANGE_MONEY", reason="Orange maintenance")
    session = make_session(
        merchant,
        success_url=f"{public_base_url}/healthz?m=ok",
        cancel_url=f"{public_base_url}/healthz?m=cancel",
    )
    page.goto(services.session_repr(session)["url"])
    notice = page.locator('[data-network-unavailable="ORANGE_MONEY"]')
    assert notice.inner_text() == "Orange Money est indisponible pour le moment."
    offered = page.locator(f"{MM_FORM} .networks .operator")
    assert offered.all_inner_texts() == ["Airtel Money", "Vodacom M-Pesa"]
    options = page.locator("#id_network option").evaluate_all("els => els.map(e => e.value)")
    assert options == ["auto", "AIRTEL_MONEY", "VODACOM_MPESA"]
    screenshot(page, "checkout-network-closed-fr")

    page.locator("#id_phone").fill("085 123 4567")
    page.locator(f"{MM_FORM} button[type=submit]").click()
    page.locator("#phone-error").wait_for()
    assert page.locator("#phone-error").inner_text() == (
        "Orange Money est indisponible pour le moment. Payez avec un numéro d'un autre opérateur."
    )
    assert page.locator("#id_phone").get_attribute("aria-invalid") == "true"
    screenshot(page, "checkout-network-closed-refused-fr")
    assert not Charge.objects.exists()

    page.locator("#id_phone").fill("0812 345 678")
    page.locator(f"{MM_FORM} button[type=submit]").click()
    page.get_by_text("Validez le paiement sur votre téléphone").wait_for()
    prompt = page.locator("[data-network]")
    assert prompt.get_attribute("data-network") == "VODACOM_MPESA"
    assert prompt.inner_text().startswith(
        "Vodacom M-Pesa a envoyé une demande de paiement au +243812345678."
    )
    screenshot(page, "checkout-network-waiting-fr")
    charge = wait_for(lambda: Charge.objects.filter(checkout_session=session).first())
    assert (charge.phone, charge.network) == ("+243812345678", "VODACOM_MPESA")
