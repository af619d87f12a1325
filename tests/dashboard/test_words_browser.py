"""A shopkeeper's first minutes and words, in headless Chromium at 360 px, in French and English:
the team page with an invitation to send again or revoke, the keys named, the batch template
offered, a payout refused in whole francs, the invitee's sign-up with their address and no
business name, and a test-mode payment link and checkout page with their test numbers and one
way back after a decline. Nothing is wider than the screen; screenshots kept."""

import pytest

from dashboard.models import Invitation
from payments.models import Charge
from tests.dashboard.pages.conftest import member
from tests.dashboard.pages.test_browser import fits, signed_in_page
from tests.factories import make_session, settle, succeeded_mobile_money_charge
from tests.helpers import screenshot
from tests.links.factories import make_link, page_path

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORDS = {
    "fr": {
        "resend": "Renvoyer",
        "whole": "Le mobile money se paie en francs entiers : 12 ou 13 CDF.",
        "template": "Télécharger le modèle (CSV)",
        "numbers": "Mode test : aucun argent ne circule.",
        "mobile": "Vous payez par mobile money à la page suivante.",
    },
    "en": {
        "resend": "Send again",
        "whole": "Mobile money is paid in whole francs: 12 or 13 CDF.",
        "template": "Download the template (CSV)",
        "numbers": "Test mode: no money moves.",
        "mobile": "You pay by mobile money on the next page.",
    },
}


@pytest.mark.parametrize("language", ["fr", "en"])
def test_a_shopkeepers_pages_at_360_px(browser, live_server, shop, language, settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    words = WORDS[language]
    user = member(shop, "owner", f"owner-words-{language}@example.com")
    succeeded_mobile_money_charge(shop, amount=1_000_000)
    invitation = Invitation.objects.create(
        merchant=shop, email="caissiere.kinshasa@example.com", role="finance"
    )
    base = live_server.url
    context, page = signed_in_page(browser, base, user, language=language)
    try:
        page.goto(f"{base}/dashboard/settings/team/")
        row = page.locator(f'tr[data-invitation="{invitation.email}"]')
        row.get_by_role("button", name=words["resend"]).click()
        page.get_by_role("status").or_(page.locator(".messages")).first.wait_for()
        assert fits(page)
        screenshot(page, f"words-team-{language}")

        page.goto(f"{base}/dashboard/test/developers/")
        page.locator("#id_name").fill("Site de la boutique")
        page.locator('form[action$="/developers/keys/"] button[type=submit]').click()
        page.locator("[data-secret=api-key]").wait_for()
        page.goto(f"{base}/dashboard/test/developers/")
        assert page.locator("[data-key-name] strong").first.inner_text() == "Site de la boutique"
        assert fits(page)
        screenshot(page, f"words-keys-{language}")

        page.goto(f"{base}/dashboard/test/payouts/batches/new/")
        assert page.locator("[data-action=batch-template]").inner_text() == words["template"]
        assert fits(page)
        screenshot(page, f"words-batch-template-{language}")

        page.goto(f"{base}/dashboard/test/payouts/new/")
        page.locator("#id_phone").fill("0812 345 678")
        page.locator("#id_amount").fill("12,50")
        page.locator("form button[type=submit]").last.click()
        page.get_by_text(words["whole"]).first.wait_for()
        assert fits(page)
        screenshot(page, f"words-payout-refused-{language}")
    finally:
        context.close()

    visitor = browser.new_context(
        locale="fr-FR" if language == "fr" else "en-GB", viewport={"width": 360, "height": 760}
    )
    page = visitor.new_page()
    try:
        page.goto(f"{base}/dashboard/invitations/{invitation.key}/?lang={language}")
        page.locator("a.btn").first.click()
        page.wait_for_url("**/accounts/signup/**")
        assert page.locator("input[name=email]").input_value() == invitation.email
        assert page.locator("input[name=business_name]").count() == 0
        assert fits(page)
        screenshot(page, f"words-invitee-sign-up-{language}")

        link = make_link(shop)
        page.goto(f"{base}{page_path(link)}?lang={language}")
        assert page.get_by_text(words["mobile"]).count() == 1
        page.locator("[data-test-numbers]").wait_for()
        assert fits(page)
        screenshot(page, f"words-link-page-{language}")

        session = make_session(shop)
        page.goto(f"{base}/pay/{session.id}?lang={language}")
        page.locator("#id_phone").fill("0812 345 001")
        page.locator("form[data-method=mobile_money] button[type=submit]").click()
        charge = _wait_for_charge(session.id)
        settle(charge, "declined", "insufficient_funds")
        page.goto(f"{base}/pay/{session.id}?attempt={charge.id}&lang={language}")
        assert page.locator("[data-action=return], [data-action=cancel]").count() == 1
        assert page.get_by_text(words["numbers"]).count() == 1
        assert fits(page)
        screenshot(page, f"words-checkout-declined-{language}")
    finally:
        visitor.close()


def _wait_for_charge(session_id: str) -> Charge:
    from tests.helpers import wait_for

    wait_for(lambda: Charge.objects.filter(checkout_session_id=session_id).exists())
    return Charge.objects.get(checkout_session_id=session_id)
