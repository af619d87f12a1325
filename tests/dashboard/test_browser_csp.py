"""The dashboard, the account pages and the admin in headless Chromium with their own
Content-Security-Policy in force (docs/operations/security.md, "Private pages"): the policy
refuses nothing on any of them (no inline script or style left), and what runs on them still
works: the payment link's copy button, the payments search (htmx), the admin's own scripts."""

import pytest
from django.conf import settings

from tests.dashboard.pages.conftest import client_of, member
from tests.dashboard.test_every_page import every_page
from tests.factories import staff_client, succeeded_mobile_money_charge
from tests.helpers import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def enforcing_page(browser, base_url: str, client, refused: list):
    """A browser signed in with `client`'s session, the pages' policy in force, every refusal
    the policy makes (Chromium reports each on the console) added to `refused`."""
    context = browser.new_context(
        locale="fr-FR", viewport={"width": 1280, "height": 800}, bypass_csp=False
    )
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": base_url}])
    page = context.new_page()
    page.on(
        "console",
        lambda m: (
            refused.append((page.url, m.text)) if "Content Security Policy" in m.text else None
        ),
    )
    return context, page


def test_no_dashboard_or_account_page_breaks_its_policy(browser, live_server, shop):
    user = member(shop, "owner", "owner-csp@example.com")
    pages = every_page(shop, user) + ["/accounts/2fa/", "/accounts/email/"]
    refused = []
    context, page = enforcing_page(browser, live_server.url, client_of(user), refused)
    try:
        for path in pages:
            response = page.goto(f"{live_server.url}{path}", wait_until="load")
            assert response.status == 200, path
            assert "script-src 'self'" in response.headers["content-security-policy"]
            if "/payment-links/pl_" in path:
                # its copy button is shown by its script, which the policy lets run
                page.locator("#copy-url").wait_for(state="visible")
        # htmx, under the policy, still updates the results as one types
        paid = succeeded_mobile_money_charge(shop, amount=250000, description="Savon")
        page.goto(f"{live_server.url}/dashboard/test/payments/")
        with page.expect_response(lambda r: "q=Savon" in r.url):
            page.locator("#id_q").fill("Savon")
        page.locator(f'tbody tr[data-id="{paid.id}"]').wait_for()
        page.wait_for_timeout(200)  # the console's last reports
        screenshot(page, "dashboard-payments-csp")
    finally:
        context.close()
    assert refused == []


def test_no_admin_page_breaks_its_policy(browser, live_server, shop):
    charge = succeeded_mobile_money_charge(shop, amount=500000, description="Sac de riz")
    refused = []
    context, page = enforcing_page(browser, live_server.url, staff_client(), refused)
    try:
        for path in (
            "/admin/",
            "/admin/overview/",
            "/admin/payments/charge/",
            f"/admin/payments/charge/{charge.pk}/change/",
            f"/admin/payments/merchant/{shop.pk}/change/",
        ):
            response = page.goto(f"{live_server.url}{path}", wait_until="load")
            assert response.status == 200, path
            assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        # the change list's own scripts run: the action checkboxes select the row
        page.goto(f"{live_server.url}/admin/payments/charge/")
        page.locator("#action-toggle").check()
        page.locator("tr.selected").first.wait_for()
        page.wait_for_timeout(200)
        screenshot(page, "admin-charges-csp")
    finally:
        context.close()
    assert refused == []
