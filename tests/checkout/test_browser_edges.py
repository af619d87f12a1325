"""The customer's page at the edges, in headless Chromium at 360 px: a payment that came too late
and is being returned, and too many payment attempts. Screenshots land in tests/artifacts/."""

import pytest

from checkout import services
from payments import services as payment_services
from payments.providers.base import ProviderOutcome
from payments.services import charges
from tests.factories import expire_session, make_session
from tests.helpers import screenshot, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SMALL_PHONE = {"width": 360, "height": 740}
MM = {"payment_method": "mobile_money", "phone": "+243812345678", "network": "VODACOM_MPESA"}


def test_a_payment_on_an_expired_page_says_the_money_will_be_returned(
    page, merchant, public_base_url
):
    session = make_session(merchant)
    charge = services.session_attempt_create(session_id=session.id, **MM)
    expire_session(session)
    payment_services.charge_apply_outcome(
        charge_id=charge.id, outcome=ProviderOutcome(status="succeeded")
    )
    page.goto(f"{public_base_url}/pay/{session.id}?attempt={charge.id}")
    notice = page.locator('[data-state="late-payment"]')
    assert notice.is_visible()
    assert "Votre argent vous sera rendu" in notice.inner_text()
    assert page.locator('form[data-method="mobile_money"]').count() == 0
    page.set_viewport_size(SMALL_PHONE)
    screenshot(page, "checkout-late-payment-expired")


def test_too_many_attempts_keep_the_customer_on_a_page_that_says_when_to_retry(
    page, merchant, public_base_url, settings
):
    settings.THROTTLE_CHECKOUT_ATTEMPTS_SESSION = "1/h"
    session = make_session(merchant, customer_phone="+243812345678")
    page.goto(f"{public_base_url}/pay/{session.id}?lang=en")
    page.locator('form[data-method="mobile_money"] [type="submit"]').click()  # counted: 1 of 1
    charge = wait_for(lambda: session.charges.filter(status="pending").first())
    charges.charge_apply_outcome(
        charge_id=charge.id,
        outcome=ProviderOutcome(status="declined", failure_code="customer_rejected"),
    )
    page.goto(f"{public_base_url}/pay/{session.id}?lang=en")
    with page.expect_response(lambda r: r.request.method == "POST") as answer:
        page.locator('form[data-method="mobile_money"] [type="submit"]').click()
    assert answer.value.status == 429
    assert "Too many payment attempts" in page.locator("body").inner_text()
    assert page.locator('form[data-method="mobile_money"]').is_visible()
    page.set_viewport_size(SMALL_PHONE)
    screenshot(page, "checkout-too-many-attempts")
