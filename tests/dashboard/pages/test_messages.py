"""The test inbox (/dashboard/test/messages/) and the business setting of receipts by SMS; in
Chromium at 360 px, in French and English, the inbox and a receipt's page (/r/{token}) that a
payment link paid on a phone left there."""

import re

import pytest
from django.conf import settings

from dashboard.models import AuditEntry
from links import services as links
from messaging import services
from messaging.models import MessagingSettings
from tests.dashboard.pages.conftest import client_of, member
from tests.helpers import axe_violations, screenshot
from tests.links.factories import make_link, pay_session

pytestmark = pytest.mark.django_db


def test_receipts_by_sms_are_on_by_default_and_the_owner_turns_them_off(shop, owner):
    page = owner.get("/dashboard/settings/business/").content.decode()
    assert re.search(r'<input type="radio" name="sms_receipts" value="on"[^>]* checked', page)
    values = {"name": shop.name, "support_email": "", "support_phone": ""}
    owner.post("/dashboard/settings/business/", values)  # a form without it changes nothing
    assert services.messaging_settings(shop).sms_receipts is True
    assert not AuditEntry.objects.filter(merchant=shop).exists()
    owner.post("/dashboard/settings/business/", {**values, "sms_receipts": "off"})
    assert MessagingSettings.objects.get(merchant=shop).sms_receipts is False
    (row,) = AuditEntry.objects.filter(merchant=shop)
    assert (row.action, row.object_id) == ("settings.updated", "sms_receipts")
    page = owner.get("/dashboard/settings/business/").content.decode()
    assert re.search(r'<input type="radio" name="sms_receipts" value="off"[^>]* checked', page)


def test_a_viewer_may_not_change_it(shop, clients):
    answer = clients["viewer"].post(
        "/dashboard/settings/business/", {"name": shop.name, "sms_receipts": "off"}
    )
    assert answer.status_code == 403
    assert services.messaging_settings(shop).sms_receipts is True


def test_the_inbox_lists_test_messages_newest_first_and_live_has_none(shop, clients):
    first = services.sms_queue(
        merchant=shop, livemode=False, to="+243812345678", body="Premier", kind="receipt"
    )
    second = services.sms_queue(
        merchant=shop, livemode=False, to="+243991234567", body="Second", kind="notification"
    )
    page = clients["viewer"].get("/dashboard/test/messages/").content.decode()
    assert page.index(second.id) < page.index(first.id)
    assert "+243991234567" in page and "Premier" in page
    shop.live_approved = True
    shop.save(update_fields=["live_approved"])
    assert clients["viewer"].get("/dashboard/live/messages/").status_code == 404


@pytest.mark.browser
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_paid_link_leaves_its_receipt_in_the_inbox_at_360_px(
    browser, axe_source, live_server, public_base_url, shop, language
):
    shop.name = "Boutique Lumière"
    shop.save(update_fields=["name"])
    link = make_link(shop, amount=1250000, description="Sac de riz 25 kg")
    session = links.link_open_session(link=link, language=language)
    pay_session(session, locale=language, provider_reference="MP241121.1030.A12345")
    user = member(shop, "owner", f"owner-{language}@example.com")
    client = client_of(user)
    context = browser.new_context(
        locale="fr-FR" if language == "fr" else "en-US",
        viewport={"width": 360, "height": 780},
        bypass_csp=True,
    )
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            },
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url},
        ]
    )
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/dashboard/test/messages/")
        heading = {"fr": "SMS de test", "en": "Test messages"}[language]
        assert page.get_by_role("heading", name=heading).is_visible()
        body = page.locator("[data-body]").first.inner_text()
        expected = {
            "fr": "Paiement de 12 500 CDF à Boutique Lumière confirmé. Réf. MP241121.1030.A12345.",
            "en": "Payment of 12,500 CDF to Boutique Lumière confirmed. Ref. MP241121.1030.A12345.",
        }[language]
        assert body.startswith(expected)
        assert axe_violations(page, axe_source) == []
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"dashboard-test-messages-{language}")

        page.locator("[data-body] a").first.click()
        page.wait_for_url(re.compile(r".*/r/[A-Za-z0-9]{22}$"))
        assert page.locator("html").get_attribute("lang") == language
        amount = re.sub(r"\s", " ", page.locator("[data-amount]").inner_text())
        assert amount == {"fr": "12 500 CDF", "en": "12,500 CDF"}[language]
        assert page.locator("[data-reference]").inner_text() == "MP241121.1030.A12345"
        assert axe_violations(page, axe_source) == []
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        screenshot(page, f"sms-receipt-{language}")
        other = "en" if language == "fr" else "fr"
        page.locator(f"nav.lang a[lang={other}]").click()
        page.wait_for_url(re.compile(rf".*\?lang={other}$"))
        assert page.locator("html").get_attribute("lang") == other
        screenshot(page, f"sms-receipt-{language}-then-{other}")
    finally:
        context.close()
