"""The hosted checkout in headless Chromium, against the live test server.

The sandbox mobile money answer is driven the way the worker would: the payment request, then a
status check (SANDBOX_MOBILE_MONEY_DELAY=0), or by a real worker on Redis in one test.
"""

import re

import pytest

from checkout import services
from payments.models import Charge
from payments.services import charges
from tests.factories import make_session
from tests.helpers import query_params, screenshot, wait_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MM_FORM = 'form[data-method="mobile_money"]'
CARD_FORM = 'form[data-method="card"]'


@pytest.fixture
def shop(public_base_url, settings):
    """The merchant's return pages: any page of the live server that exists will do."""
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    return {
        "success_url": f"{public_base_url}/healthz?m=ok",
        "cancel_url": f"{public_base_url}/healthz?m=cancel",
    }


def latest_pending(session) -> Charge:
    return wait_for(
        lambda: Charge.objects.filter(checkout_session=session, status="pending").first()
    )


def answer_prompt(charge: Charge) -> Charge:
    """What the worker does: hand the request to the sandbox operator, then ask for its status."""
    charges.charge_request_payment(charge_id=charge.id)
    return charges.charge_refresh(charge_id=charge.id)


def test_mobile_money_success_returns_to_success_url(page, merchant, shop):
    session = make_session(merchant, customer_phone="+243812345678", **shop)
    page.goto(services.session_repr(session)["url"])
    assert page.locator(".amount").inner_text() == "2 500 CDF"
    assert page.locator(CARD_FORM).count() == 0
    screenshot(page, "checkout-pay-fr")
    page.locator(f"{MM_FORM} button[type=submit]").click()
    page.get_by_text("Validez le paiement sur votre téléphone").wait_for()
    screenshot(page, "checkout-waiting-fr")
    charge = latest_pending(session)
    assert answer_prompt(charge).status == "succeeded"
    page.wait_for_url(re.compile(r".*/healthz\?m=ok&.*"))
    assert query_params(page.url) == {
        "m": "ok",
        "session_id": session.id,
        "transaction_id": charge.id,
        "status": "succeeded",
    }
    session.refresh_from_db()
    assert session.status == "complete"


def test_mobile_money_decline_shows_the_error_and_a_retry_succeeds(page, merchant, shop):
    session = make_session(merchant, **shop)
    page.goto(services.session_repr(session)["url"])
    page.locator("#id_phone").fill("0971 234 001")
    page.locator(f"{MM_FORM} button[type=submit]").click()
    declined = answer_prompt(latest_pending(session))
    assert declined.status == "declined"
    alert = page.get_by_role("alert")
    alert.wait_for()
    assert "Votre solde mobile money est insuffisant" in alert.inner_text()
    screenshot(page, "checkout-declined-fr")
    page.locator("#id_phone").fill("0971234567")
    page.locator(f"{MM_FORM} button[type=submit]").click()
    second = latest_pending(session)
    assert second.id != declined.id and second.network == "AIRTEL_MONEY"
    answer_prompt(second)
    page.wait_for_url(re.compile(r".*/healthz\?m=ok&.*"))
    assert query_params(page.url)["transaction_id"] == second.id


def test_invalid_phone_is_refused_inline(page, merchant, shop):
    session = make_session(merchant, **shop)
    page.goto(services.session_repr(session)["url"])
    page.locator("#id_phone").fill("12345")
    page.locator(f"{MM_FORM} button[type=submit]").click()
    page.locator("#phone-error").wait_for()
    assert "numéro mobile de RD Congo" in page.locator("#phone-error").inner_text()
    assert page.locator("#id_phone").get_attribute("aria-invalid") == "true"
    screenshot(page, "checkout-invalid-phone-fr")
    assert not Charge.objects.exists()


def test_customer_cancel_goes_to_cancel_url(page, merchant, shop):
    session = make_session(merchant, **shop)
    page.goto(services.session_repr(session)["url"])
    page.locator('[data-action="cancel"]').click()
    page.wait_for_url(re.compile(r".*/healthz\?m=cancel&.*"))
    assert query_params(page.url) == {"m": "cancel", "session_id": session.id, "status": "canceled"}


def test_expired_session_shows_a_clear_page(page, merchant, shop):
    session = make_session(merchant, **shop)
    services.session_expire(session=session)
    page.goto(services.session_repr(session)["url"])
    assert page.get_by_role("heading").inner_text() == "Ce lien de paiement a expiré"
    assert page.locator("form").count() == 0
    screenshot(page, "checkout-expired-fr")


def test_english_by_switch_and_by_browser_language(page, browser, merchant, shop):
    session = make_session(merchant, currency="USD", amount=250000, **shop)
    url = services.session_repr(session)["url"]
    page.goto(url)
    assert page.locator("html").get_attribute("lang") == "fr"
    assert page.locator(CARD_FORM).count() == 1
    page.get_by_role("link", name="English").click()
    page.wait_for_url(re.compile(r".*lang=en"))
    assert page.locator(".amount").inner_text() == "2,500 USD"
    assert page.get_by_role("button", name="Pay 2,500 USD").count() == 1
    screenshot(page, "checkout-pay-en")
    context = browser.new_context(locale="en-US", viewport={"width": 1280, "height": 900})
    try:
        english = context.new_page()
        english.goto(url)
        assert english.locator("html").get_attribute("lang") == "en"
        assert "Amount to pay" in english.inner_text("body")
        screenshot(english, "checkout-pay-en-desktop")
    finally:
        context.close()


def test_keyboard_only_payment_reaches_the_waiting_page(page, merchant, shop):
    session = make_session(merchant, customer_phone="+243851234567", **shop)
    page.goto(services.session_repr(session)["url"])
    page.locator("#id_phone").focus()
    page.keyboard.press("Tab")  # operator
    page.keyboard.press("Tab")  # pay button
    assert page.evaluate("document.activeElement.type") == "submit"
    page.keyboard.press("Enter")
    page.get_by_text("Validez le paiement sur votre téléphone").wait_for()
    assert latest_pending(session).network == "ORANGE_MONEY"


@pytest.mark.redis
def test_real_worker_settles_the_prompt_and_the_page_follows(
    page, merchant, shop, celery_worker_process
):
    celery_worker_process(SANDBOX_MOBILE_MONEY_DELAY="1")
    session = make_session(merchant, customer_phone="+243821234567", **shop)
    page.goto(services.session_repr(session)["url"])
    page.locator(f"{MM_FORM} button[type=submit]").click()
    page.wait_for_url(re.compile(r".*/healthz\?m=ok&.*"), timeout=30_000)
    assert query_params(page.url)["status"] == "succeeded"


# --- Card: needs the sandbox card page (/sandbox/card/pay) and the receipt endpoint ------------


@pytest.mark.parametrize(
    "outcome, status, target",
    [("accept", "succeeded", "ok"), ("decline", "declined", "cancel")],
)
def test_card_payment_returns_to_the_merchant(page, merchant, shop, outcome, status, target):
    session = make_session(merchant, currency="USD", amount=1999, **shop)
    page.goto(services.session_repr(session)["url"])
    assert page.locator(MM_FORM).count() == 0
    page.locator(f"{CARD_FORM} button[type=submit]").click()
    page.locator(f'[data-outcome="{outcome}"]').click()
    page.wait_for_url(re.compile(rf".*/healthz\?m={target}&.*"), timeout=20_000)
    charge = Charge.objects.get(checkout_session=session)
    assert query_params(page.url) == {
        "m": target,
        "session_id": session.id,
        "transaction_id": charge.id,
        "status": status,
    }


def test_back_to_the_card_page_opens_a_fresh_attempt_that_can_be_paid(page, merchant, shop):
    session = make_session(merchant, currency="USD", amount=1999, **shop)
    page.goto(services.session_repr(session)["url"])
    page.locator(f"{CARD_FORM} button[type=submit]").click()
    page.wait_for_selector('[data-outcome="accept"]')
    charge = Charge.objects.get(checkout_session=session)
    first_attempt = charge.provider_attempt

    # The customer leaves the card page for our waiting page, then goes back to pay.
    page.goto(f"{services.session_repr(session)['url']}/card-return?transaction_id={charge.id}")
    page.get_by_role("button", name="Revenir à la page de paiement par carte").click()
    page.wait_for_selector('[data-outcome="accept"]')  # not the provider's refusal page
    charge.refresh_from_db()
    assert charge.provider_attempt != first_attempt
    screenshot(page, "checkout-card-fresh-attempt")

    page.locator('[data-outcome="accept"]').click()
    page.wait_for_url(re.compile(r".*/healthz\?m=ok&.*"), timeout=20_000)
    charge.refresh_from_db()
    assert (
        charge.status == "succeeded"
        and Charge.objects.filter(checkout_session=session).count() == 1
    )
