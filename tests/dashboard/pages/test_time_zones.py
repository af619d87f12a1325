"""The merchant's time zone: a business setting; every dashboard page shows its times in it, the
zone named (WAT in Kinshasa, CAT in Lubumbashi), and reads the days of its date filters in it;
dates as French and English readers write them; the API stays in UTC."""

from datetime import UTC, datetime

import pytest
import time_machine

from payments.models import Merchant
from tests.dashboard.pages.conftest import member
from tests.dashboard.pages.test_browser import fits, signed_in_page
from tests.factories import make_charge, succeeded_mobile_money_charge
from tests.helpers import api_client, axe_violations, screenshot

PAYMENTS = "/dashboard/test/payments/"
BUSINESS = "/dashboard/settings/business/"
# 13:05 UTC: 14:05 in Kinshasa, 15:05 in Lubumbashi.
PAID = datetime(2026, 12, 8, 13, 5, tzinfo=UTC)


def business(merchant, **changed) -> dict:
    return {
        "name": merchant.name,
        "support_email": merchant.support_email,
        "support_phone": merchant.support_phone,
        "time_zone": merchant.time_zone,
        **changed,
    }


def test_times_are_the_merchants_with_the_zone_named(shop, owner):
    charge = make_charge(shop, at=PAID, description="Savon")
    french = owner.get(PAYMENTS, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "08/12/2026 14:05 WAT" in french
    assert "13:05" not in french
    english = owner.get(f"{PAYMENTS}{charge.id}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "8 Dec 2026, 14:05 WAT" in english  # never the American 12/08/2026 2:05 p.m.

    page = owner.get(BUSINESS)
    assert page.context["form"]["time_zone"].value() == "Africa/Kinshasa"
    saved = owner.post(BUSINESS, business(shop, time_zone="Africa/Lubumbashi"))
    assert saved.status_code == 302
    assert Merchant.objects.get(pk=shop.pk).time_zone == "Africa/Lubumbashi"
    french = owner.get(PAYMENTS, HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert "08/12/2026 15:05 CAT" in french


def test_a_zone_that_is_not_offered_is_refused(shop, owner):
    refused = owner.post(BUSINESS, business(shop, time_zone="Europe/Paris"))
    assert refused.status_code == 200
    assert refused.context["form"].errors["time_zone"]
    assert Merchant.objects.get(pk=shop.pk).time_zone == "Africa/Kinshasa"


def test_the_date_filters_read_the_merchants_days(shop, owner):
    # 23:30 UTC on the 7th is half past midnight on the 8th in Kinshasa.
    late = make_charge(shop, at=datetime(2026, 12, 7, 23, 30, tzinfo=UTC))
    early = make_charge(shop, at=datetime(2026, 12, 7, 22, 30, tzinfo=UTC))
    on_the_8th = owner.get(PAYMENTS, {"date_from": "2026-12-08", "date_to": "2026-12-08"})
    assert [c.id for c in on_the_8th.context["page"].rows] == [late.id]
    on_the_7th = owner.get(PAYMENTS, {"date_from": "2026-12-07", "date_to": "2026-12-07"})
    assert [c.id for c in on_the_7th.context["page"].rows] == [early.id]
    assert owner.get(PAYMENTS, {"date_to": "9999-12-31"}).status_code == 200


def test_the_api_stays_in_utc(shop_keys, owner):
    shop = shop_keys.merchant
    shop.time_zone = "Africa/Lubumbashi"
    shop.save(update_fields=["time_zone"])
    charge = make_charge(shop, at=PAID)
    answer = api_client(shop_keys.test_key.plaintext).get(f"/v1/charges/{charge.id}")
    assert answer.status_code == 200
    assert answer.json()["created_at"] == "2026-12-08T13:05:00.000000Z"


@pytest.mark.browser
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("language", ["fr", "en"])
def test_an_owner_moves_the_shop_to_lubumbashi(
    browser, live_server, shop, axe_source, language, width
):
    user = member(shop, "owner", f"owner-{language}-{width}@example.com")
    with time_machine.travel(PAID, tick=False):
        charge = make_charge(shop, description="Savon")
    context, page = signed_in_page(browser, live_server.url, user, language=language, width=width)
    try:
        page.goto(f"{live_server.url}{BUSINESS}")
        page.locator("#id_time_zone").select_option("Africa/Lubumbashi")
        page.locator("main form button[type=submit]").click()
        page.wait_for_url(f"**{BUSINESS}")
        assert fits(page)
        assert axe_violations(page, axe_source) == []
        screenshot(page, f"dashboard-business-time-zone-{language}-{width}")
        page.goto(f"{live_server.url}{PAYMENTS}")
        shown = page.locator(f'tbody tr[data-id="{charge.id}"]').inner_text()
        expected = {"fr": "08/12/2026 15:05 CAT", "en": "8 Dec 2026, 15:05 CAT"}[language]
        assert expected in shown
        assert fits(page)
        screenshot(page, f"dashboard-payments-lubumbashi-{language}-{width}")
    finally:
        context.close()


def test_the_home_pages_today_is_the_merchants(shop, owner):
    # 23:30 UTC on the 7th is 00:30 on the 8th in Kinshasa: today's, seen at 10:00 there.
    for hour in (23, 22):
        with time_machine.travel(datetime(2026, 12, 7, hour, 30, tzinfo=UTC), tick=False):
            succeeded_mobile_money_charge(shop)
    with time_machine.travel(datetime(2026, 12, 8, 9, 0, tzinfo=UTC), tick=False):
        (totals,) = owner.get("/dashboard/test/").context["totals"]
    assert (totals["today_count"], totals["week_count"]) == (1, 2)
