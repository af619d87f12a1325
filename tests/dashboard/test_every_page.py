"""Every page of the dashboard an owner can open, in headless Chromium at 360 px in French:
it answers 200, nothing on it is wider than the screen, and axe-core finds no violation. The
pages' own tests check what each does; this one checks that none was left out of the rules for
people on phones."""

import pytest

from batches.services import batch_create_from_file
from links.services import link_create
from payments.services import settlements
from tests.dashboard.pages.conftest import member
from tests.dashboard.pages.test_browser import fits, signed_in_page
from tests.factories import (
    make_charge,
    record_event,
    sent_payout,
    succeeded_mobile_money_charge,
)
from tests.helpers import axe_violations, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

FILE = (
    b"phone,amount,currency,network,reference,description\n"
    b"+243812345678,2500,CDF,VODACOM_MPESA,SAL-1,Salaire novembre\n"
    b"0812,douze,CDF,,SAL-2,\n"
)


def every_page(shop, user) -> list[str]:
    """Every page an owner of `shop` can open, each with something on it."""
    charge = succeeded_mobile_money_charge(shop, amount=500000, description="Sac de riz 25 kg")
    declined = make_charge(shop, status="declined", failure_code="insufficient_funds")
    payout = sent_payout(shop, amount=5000)
    event = record_event(shop)
    link = link_create(
        merchant=shop, livemode=False, currency="CDF", description="Don", amount=250000
    )
    batch = batch_create_from_file(merchant=shop, livemode=False, data=FILE, user_id=user.pk)
    settlements.account_add(
        merchant=shop,
        livemode=False,
        type="bank_account",
        currency="CDF",
        bank_name="Rawbank",
        account_holder="Boutique Gombe SARL",
        account_number="05012345678904821",
        swift="RAWBCDKI",
    )
    settlement = settlements.settlement_create(
        merchant=shop, livemode=False, currency="CDF", amount=100000
    )
    return [
        "/dashboard/test/",
        "/dashboard/test/payments/",
        f"/dashboard/test/payments/{charge.id}/",
        f"/dashboard/test/payments/{declined.id}/",
        "/dashboard/test/balance/",
        "/dashboard/test/payouts/",
        "/dashboard/test/payouts/new/",
        f"/dashboard/test/payouts/{payout.id}/",
        "/dashboard/test/payouts/batches/",
        "/dashboard/test/payouts/batches/new/",
        f"/dashboard/test/payouts/batches/{batch.id}/",
        "/dashboard/test/payment-links/",
        f"/dashboard/test/payment-links/{link.id}/",
        "/dashboard/test/settlements/",
        "/dashboard/test/settlements/new/",
        "/dashboard/test/settlements/schedule/",
        f"/dashboard/test/settlements/{settlement.id}/",
        "/dashboard/test/developers/",
        "/dashboard/test/developers/events/",
        f"/dashboard/test/developers/events/{event.id}/",
        "/dashboard/settings/business/",
        "/dashboard/settings/team/",
        "/dashboard/settings/security/",
        "/dashboard/settings/pricing/",
        "/dashboard/settings/settlement/",
        "/dashboard/audit/",
    ]


def test_every_dashboard_page_at_360_px(browser, live_server, shop, axe_source):
    user = member(shop, "owner", "owner-pages@example.com")
    pages = every_page(shop, user)
    context, page = signed_in_page(browser, live_server.url, user, language="fr")
    problems = {}
    try:
        for path in pages:
            response = page.goto(f"{live_server.url}{path}")
            found = []
            if response.status != 200:
                found.append(f"status {response.status}")
            if not fits(page):
                found.append("wider than 360 px")
            violations = axe_violations(page, axe_source)
            if violations:
                found.append(violations)
            if found:
                problems[path] = found
                screenshot(page, "dashboard-every-page" + path.replace("/", "-").rstrip("-"))
    finally:
        context.close()
    assert problems == {}
