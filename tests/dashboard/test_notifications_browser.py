"""The notifications page in headless Chromium, at 360 px and 1280 px, in French and English: a
member ticks SMS for each payment, types a phone as people write it, saves; nothing wider than
the screen, axe-core finding no violation, the security row shown as always on."""

import pytest

from dashboard.models import NotificationPreference
from tests.dashboard.pages.conftest import member
from tests.dashboard.pages.test_browser import fits, signed_in_page
from tests.helpers import axe_violations, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

SAVED = {"fr": "Vos notifications sont enregistrées.", "en": "Your notifications are saved."}


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_member_chooses_sms_for_each_payment(
    browser, live_server, shop, axe_source, language, width
):
    user = member(shop, "finance", f"finance-{language}-{width}@example.com")
    context, page = signed_in_page(browser, live_server.url, user, language=language, width=width)
    try:
        page.goto(f"{live_server.url}/dashboard/settings/notifications/")
        security = page.locator('input[data-notify="security"][data-channel="email"]')
        assert security.is_checked() and security.is_disabled()
        page.locator('input[data-notify="payment"][data-channel="sms"]').check()
        page.locator("#id_phone").fill("0812 345 678")
        page.locator('form[data-form="notifications"] button[type=submit]').click()
        page.get_by_text(SAVED[language]).wait_for()
        assert page.locator("#id_phone").input_value() == "+243812345678"
        assert page.locator('input[data-notify="payment"][data-channel="sms"]').is_checked()
        assert fits(page)
        assert axe_violations(page, axe_source) == []
        screenshot(page, f"dashboard-notifications-{language}-{width}")
        preference = NotificationPreference.objects.get(membership__user=user)
        assert (preference.phone, preference.payment_sms) == ("+243812345678", True)
    finally:
        context.close()
