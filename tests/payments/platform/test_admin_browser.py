"""The staff pages in headless Chromium at 1280 px, in French: every list fits the window, an
object's address carries its id as it is, read-only records offer no Save button, the merchant's
support contact is set there. Screenshots land in tests/artifacts/."""

import re

import pytest

from checkout import services as checkout_services
from payments.services import refunds
from tests.factories import (
    event_with_id,
    make_charge,
    make_session,
    merchant_with_keys,
    record_event,
    sent_payout,
    settle,
    staff_user,
    succeeded_mobile_money_charge,
)
from tests.helpers import admin_sign_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 800}
LISTS = [
    "payments/merchant",
    "payments/networkstate",
    "payments/apikey",
    "payments/charge",
    "payments/refund",
    "payments/payout",
    "payments/ledgerentry",
    "checkout/checkoutsession",
    "webhooks/event",
    "webhooks/delivery",
]


@pytest.fixture
def data(settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    merchant = merchant_with_keys(name="Pharmacie Lumumba et Fils de Kinshasa-Gombe").merchant
    make_charge(merchant, description="Commande 42 : 3 boîtes de paracétamol et du sirop")
    make_charge(merchant, payment_method="card", status="declined", failure_code="card_declined")
    paid = succeeded_mobile_money_charge(merchant, amount=2_500_000_00)
    refunds.refund_create(charge=paid, amount=1_000_00, metadata={"sandbox_refund": "pending"})
    sent_payout(merchant, amount=500_000_00, phone="+243971234567", network="AIRTEL_MONEY")
    session = make_session(merchant)
    settle(
        checkout_services.session_attempt_create(
            session_id=session.id,
            payment_method="mobile_money",
            phone="+243971234001",
            network="AIRTEL_MONEY",
        ),
        "declined",
        "insufficient_funds",
    )
    record_event(merchant, url="https://hooks.pharmacie-lumumba.example.cd/paiements/webhooks")
    return {"merchant": merchant, "event": event_with_id(merchant, "evt_5F0U6" + "a" * 19)}


@pytest.fixture
def staff_page(page, live_server):
    staff_user("staff", password="pw-123-long")
    page.set_viewport_size(DESKTOP)
    admin_sign_in(page, live_server.url, "/admin/")
    return page


def fits_the_window(page) -> bool:
    """Nothing scrolls sideways: neither the page nor the list inside it (Django lets a list too
    wide for its box scroll on its own, hiding its last columns)."""
    return page.evaluate(
        """() => [document.documentElement, ...document.querySelectorAll(".results")]
            .every(box => box.scrollWidth <= box.clientWidth)"""
    )


@pytest.mark.parametrize("changelist", LISTS)
def test_every_list_fits_1280_px(staff_page, live_server, data, changelist):
    staff_page.goto(f"{live_server.url}/admin/{changelist}/")
    assert staff_page.locator("#result_list tbody tr").count() >= 1
    screenshot(staff_page, f"admin-{changelist.replace('/', '-')}-1280")
    assert fits_the_window(staff_page), staff_page.evaluate(
        """() => [document.documentElement, ...document.querySelectorAll(".results")]
            .map(box => [box.scrollWidth, box.clientWidth])"""
    )


def test_an_events_address_bar_shows_its_real_id(staff_page, live_server, data):
    event = data["event"]
    staff_page.goto(f"{live_server.url}/admin/webhooks/event/")
    staff_page.get_by_role("link", name=event.id, exact=True).click()
    staff_page.wait_for_url(re.compile(r".*/change/$"))
    assert staff_page.url == f"{live_server.url}/admin/webhooks/event/{event.id}/change/"
    assert "_5F5F" not in staff_page.url and event.id.startswith("evt_5F0U6")
    # What staff copy from the address bar is the id the API and the webhooks carry.
    copied = staff_page.url.split("/")[-3]
    assert copied == event.id
    screenshot(staff_page, "admin-event-1280")


def test_a_charge_page_is_read_only_and_names_each_amount_once(staff_page, live_server, data):
    staff_page.goto(f"{live_server.url}/admin/payments/charge/")
    staff_page.locator("#result_list tbody tr a").first.click()
    staff_page.wait_for_url(re.compile(r".*/admin/payments/charge/ch_\w+/change/$"))
    assert staff_page.locator("[name=_save], [name=_continue], [name=_addanother]").count() == 0
    labels = staff_page.locator("fieldset label").all_inner_texts()
    assert [label.rstrip(" :\xa0") for label in labels].count("Montant") == 1
    assert staff_page.get_by_role("heading", name="Montants").count() == 1
    screenshot(staff_page, "admin-charge-1280")
    assert fits_the_window(staff_page)


def test_staff_set_the_support_contact_shown_to_customers(staff_page, live_server, data):
    merchant = data["merchant"]
    staff_page.goto(f"{live_server.url}/admin/payments/merchant/{merchant.id}/change/")
    staff_page.get_by_label("Téléphone du support").fill("appelez le 0812")
    staff_page.locator("[name=_continue]").click()
    staff_page.locator(".errorlist").first.wait_for()
    assert "Des chiffres et des espaces" in staff_page.locator(".errorlist").first.inner_text()
    staff_page.get_by_label("Téléphone du support").fill("+243 81 234 5678")
    staff_page.get_by_label("E-mail du support").fill("aide@pharmacie-lumumba.cd")
    staff_page.locator("[name=_continue]").click()
    staff_page.locator(".messagelist .success").wait_for()
    screenshot(staff_page, "admin-merchant-support-1280")
    merchant.refresh_from_db()
    assert (merchant.support_phone, merchant.support_email) == (
        "+243 81 234 5678",
        "aide@pharmacie-lumumba.cd",
    )
    session = make_session(merchant)
    staff_page.goto(f"{live_server.url}/pay/{session.id}")
    assert "aide@pharmacie-lumumba.cd" in staff_page.locator(".support").inner_text()


def test_the_overview_page(staff_page, live_server, data):
    staff_page.get_by_role("link", name=re.compile("Vue d’ensemble")).click()
    staff_page.get_by_role("link", name="test", exact=True).click()
    staff_page.wait_for_url(re.compile(r".*/admin/overview/\?mode=test$"))
    assert staff_page.locator("table[data-period]").count() == 2
    assert "Vodacom M-Pesa" in staff_page.locator("table[data-period]").first.inner_text()
    screenshot(staff_page, "admin-overview-1280")
    assert fits_the_window(staff_page)
