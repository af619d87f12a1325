"""The dashboard from end to end in headless Chromium at 360 px, with a real Celery worker on
Redis and PostgreSQL: a merchant signs up, confirms the address by the mail's link, turns on
two-factor sign-in (TOTP) and signs in again with a code; a payment made through the API with a
key created on the developers page is settled by the worker and shows up in the payments list;
the merchant refunds it on its page, then invites a viewer, who joins from the invitation mail,
sees no refund form and whose forced refund is refused with 403, changing nothing. Every page
visited has no axe-core violation, the payments list's first load weighs at most 100 KB, and no
request leaves the service."""

import json
import re
import time
import urllib.request
from urllib.parse import urlsplit

import pytest

from dashboard.models import Membership
from payments.models import Refund
from tests.dashboard.conftest import PASSWORD, body_of, totp_code
from tests.helpers import axe_violations, screenshot, wait_for

pytestmark = [
    pytest.mark.browser,
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
]

OWNER = "nkulu@example.com"
TEAMMATE = "bijou@example.com"
FIRST_LOAD_LIMIT = 100_000  # bytes: the payments list's page and every subresource it loads
SUBMIT = "main form button[type=submit]"


def fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def checked(page, axe_source: str, name: str) -> None:
    """The page as it is now: no axe-core violation, no sideways scrolling, a screenshot."""
    assert axe_violations(page, axe_source) == [], name
    assert fits(page), name
    screenshot(page, f"dashboard-e2e-{name}")


def new_context(browser, requests: list):
    """A phone-sized French browser whose every request is recorded."""
    context = browser.new_context(
        locale="fr-FR", viewport={"width": 360, "height": 780}, bypass_csp=True
    )
    context.on("request", lambda request: requests.append(request.url))
    return context


def mail_link(smtp_sink, to: str, pattern: str) -> str:
    def sent():
        return [m for m in smtp_sink.messages if to in m["To"]]

    (link,) = re.findall(pattern, body_of(wait_for(sent)[-1]))
    return link


def sign_in(page, base: str, email: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.fill("input[name=login]", email)
    page.fill("input[name=password]", PASSWORD)
    page.locator(SUBMIT).first.click()


def create_charge(base: str, key: str) -> dict:
    """POST /v1/charges as the merchant's server sends it: the sandbox number that succeeds."""
    request = urllib.request.Request(
        f"{base}/v1/charges",
        method="POST",
        data=json.dumps(
            {
                "amount": 250000,
                "currency": "CDF",
                "phone": "+243812345678",
                "network": "VODACOM_MPESA",
                "description": "Commande 2207 pagnes",
            }
        ).encode(),
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 201
        return json.loads(answer.read())


def test_sign_up_two_factor_payment_refund_and_a_viewer_who_cannot_refund(
    browser, axe_source, live_server, public_base_url, smtp_sink, settings, celery_worker_process
):
    settings.MFA_TOTP_TOLERANCE = 1  # the next period's code too, as authenticator apps drift
    settings.SANDBOX_MOBILE_MONEY_DELAY = 1
    celery_worker_process(beat=True, SANDBOX_MOBILE_MONEY_DELAY="1")
    base = live_server.url
    requests: list[str] = []
    context = new_context(browser, requests)
    page = context.new_page()
    try:
        # Sign up with the business's name; the verification mail's link signs in.
        page.goto(f"{base}/accounts/signup/")
        checked(page, axe_source, "signup")
        page.fill("input[name=email]", OWNER)
        page.fill("input[name=business_name]", "Pagnes Nkulu")
        page.fill("input[name=password1]", PASSWORD)
        page.fill("input[name=password2]", PASSWORD)
        page.locator(SUBMIT).first.click()
        page.wait_for_url(re.compile(r".*/accounts/confirm-email/$"))
        checked(page, axe_source, "verification-sent")
        page.goto(mail_link(smtp_sink, OWNER, r"https?://\S+/accounts/confirm-email/\S+/"))
        checked(page, axe_source, "confirm")
        page.locator(SUBMIT).first.click()
        page.wait_for_url(re.compile(r".*/dashboard/test/$"))

        # Sign out, sign in with the password.
        page.locator("header form[action='/accounts/logout/'] button").click()
        page.wait_for_load_state()
        sign_in(page, base, OWNER)
        page.wait_for_url(re.compile(r".*/dashboard/test/$"))
        assert "Pagnes Nkulu" in page.locator("header").inner_text()
        checked(page, axe_source, "home")

        # Two-factor sign-in: the password again, then the secret as text, and a code from it.
        page.goto(f"{base}/accounts/2fa/")
        checked(page, axe_source, "two-factor")
        page.locator("main a[href$='/accounts/2fa/totp/activate/']").click()
        page.wait_for_url(re.compile(r".*/accounts/reauthenticate/.*"))
        checked(page, axe_source, "reauthenticate")
        page.fill("input[name=password]", PASSWORD)
        page.locator(SUBMIT).first.click()
        page.wait_for_url(re.compile(r".*/accounts/2fa/totp/activate/$"))
        secret = page.locator("#authenticator_secret").input_value()
        assert re.fullmatch(r"[A-Z2-7]{16,}", secret), secret
        checked(page, axe_source, "totp-activate")
        page.fill("input[name=code]", totp_code(secret))
        page.locator(SUBMIT).first.click()
        page.wait_for_url(lambda url: "/totp/activate/" not in url)

        page.locator("header form[action='/accounts/logout/'] button").click()
        page.wait_for_load_state()
        sign_in(page, base, OWNER)
        page.wait_for_url(re.compile(r".*/accounts/2fa/authenticate/$"))
        checked(page, axe_source, "totp-authenticate")
        # The activation's code is spent: the next period's, which the tolerance accepts.
        page.fill("input[name=code]", totp_code(secret, time.time() + 30))
        page.locator(SUBMIT).first.click()
        page.wait_for_url(re.compile(r".*/dashboard/test/$"))

        # A test key, shown once on the developers page; a payment made with it through the API.
        page.goto(f"{base}/dashboard/test/developers/")
        page.get_by_role("button", name="Créer une clé").click()
        key = page.locator("[data-secret=api-key]").inner_text().strip()
        assert key.startswith("sk_test_")
        checked(page, axe_source, "developers-new-key")
        charge = create_charge(base, key)
        assert charge["status"] == "pending"

        # The worker settles it; the list shows it succeeded (reloaded until it does).
        row = page.locator(f'tbody tr[data-id="{charge["id"]}"]')

        def shown_succeeded() -> bool:
            page.goto(f"{base}/dashboard/test/payments/")
            return row.count() == 1 and row.locator(".badge.succeeded").count() == 1

        wait_for(shown_succeeded, timeout=90, interval=1)
        checked(page, axe_source, "payments")

        # Its page: part of it refunded through the form (the rest stays refundable, so that
        # only the role stops the viewer below); the refund is shown.
        page.locator(f'a[href$="/payments/{charge["id"]}/"]').first.click()
        page.wait_for_url(f"**/payments/{charge['id']}/")
        assert page.locator("form[data-action=refund]").count() == 1
        checked(page, axe_source, "payment")
        page.locator("#id_amount").fill("1000")
        page.locator("form[data-action=refund] button[type=submit]").click()
        page.locator(".messages .success").wait_for()
        (refund,) = Refund.objects.filter(charge_id=charge["id"])
        assert (refund.amount, refund.status) == (100000, "succeeded")
        assert page.get_by_text(refund.id).first.is_visible()
        assert page.locator("form[data-action=refund]").count() == 1  # 1 500 FC left
        checked(page, axe_source, "payment-refunded")

        # A viewer invited to the team.
        page.goto(f"{base}/dashboard/settings/team/")
        checked(page, axe_source, "team")
        page.fill("#id_email", TEAMMATE)
        page.select_option("#id_role", "viewer")
        page.get_by_role("button", name="Envoyer l’invitation").click()
        page.locator(f"text={TEAMMATE}").first.wait_for()
        checked(page, axe_source, "team-invited")

        # The payments list's first load, in a fresh browser with the page's own
        # Content-Security-Policy: its weight, and nothing fetched from elsewhere.
        cookies = context.cookies()
        light = browser.new_context(locale="fr-FR", viewport={"width": 360, "height": 780})
        light.add_cookies(cookies)
        loaded = []
        light.on("requestfinished", lambda request: loaded.append(request))
        first = light.new_page()
        first.goto(f"{base}/dashboard/test/payments/", wait_until="load")
        first.wait_for_load_state("networkidle")
        assert first.locator(f'tbody tr[data-id="{charge["id"]}"]').count() == 1
        weight = sum(request.sizes()["responseBodySize"] for request in loaded)
        assert weight <= FIRST_LOAD_LIMIT, weight
        requests.extend(request.url for request in loaded)
        light.close()
    finally:
        context.close()

    # The teammate, in a browser of their own: the invitation mail's link, sign up, sign in.
    mate = new_context(browser, requests)
    page = mate.new_page()
    try:
        link = mail_link(smtp_sink, TEAMMATE, r"https?://\S+/dashboard/invitations/\S+/")
        page.goto(link)
        checked(page, axe_source, "invitation")
        page.locator("main a[href^='/accounts/signup/']").click()
        page.wait_for_url(re.compile(r".*/accounts/signup/.*"))
        page.fill("input[name=email]", TEAMMATE)
        page.fill("input[name=password1]", PASSWORD)
        page.fill("input[name=password2]", PASSWORD)
        page.locator(SUBMIT).first.click()
        page.wait_for_url(re.compile(r".*/accounts/confirm-email/$"))
        checked(page, axe_source, "teammate-verification-sent")
        page.goto(mail_link(smtp_sink, TEAMMATE, r"https?://\S+/accounts/confirm-email/\S+/"))
        page.locator(SUBMIT).first.click()
        page.wait_for_url(re.compile(r".*/dashboard/test/$"))  # back by the link: joined
        assert "Pagnes Nkulu" in page.locator("header").inner_text()
        checked(page, axe_source, "teammate-joined")
        assert Membership.objects.get(user__email=TEAMMATE).role == "viewer"
        page.locator("header form[action='/accounts/logout/'] button").click()
        page.wait_for_load_state()
        sign_in(page, base, TEAMMATE)
        page.wait_for_url(re.compile(r".*/dashboard/test/$"))
        assert "Pagnes Nkulu" in page.locator("header").inner_text()

        # The payment's page: no refund form; a refund posted anyway is refused and does nothing.
        page.goto(f"{base}/dashboard/test/payments/{charge['id']}/")
        assert page.get_by_text(refund.id).first.is_visible()
        assert page.locator("form[data-action=refund]").count() == 0
        checked(page, axe_source, "viewer-payment")
        before = Refund.objects.count()
        status = page.evaluate(
            """async (action) => {
                const body = new FormData();
                body.append("csrfmiddlewaretoken",
                            document.querySelector("input[name=csrfmiddlewaretoken]").value);
                body.append("amount", "100");
                body.append("idempotency_key", "forced-by-a-viewer");
                return (await fetch(action, {method: "POST", body})).status;
            }""",
            f"/dashboard/test/payments/{charge['id']}/refund/",
        )
        assert status == 403
        assert Refund.objects.count() == before
    finally:
        mate.close()

    assert requests and all(urlsplit(url).netloc == urlsplit(base).netloc for url in requests), {
        url for url in requests if urlsplit(url).netloc != urlsplit(base).netloc
    }
