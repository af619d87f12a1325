"""The application for live mode in headless Chromium, at 360 px and at 1280 px, in French and in
English: the one form usable at both widths (nothing wider than the screen), a document over 5 MB
refused in words before anything is sent, the form filled, its documents chosen and submitted;
axe-core finds no violation. Screenshots in tests/artifacts/."""

import re

import pytest
from django.conf import settings

from dashboard.models import ActivationApplication
from tests.dashboard.conftest import make_member, signed_in
from tests.dashboard.test_activation import JPEG, PDF, PNG
from tests.helpers import axe_violations, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

WORDS = {
    "fr": {
        "heading": "Demande de mode réel",
        "too_large": "Ce fichier dépasse 5 Mo",
        "submitted": "Votre demande est soumise.",
        "status": "Soumise",
    },
    "en": {
        "heading": "Application for live mode",
        "too_large": "This file is larger than 5 MB",
        "submitted": "Your application is submitted.",
        "status": "Submitted",
    },
}


def fits(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


@pytest.fixture(autouse=True)
def _documents_in_a_folder_of_the_test(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.mark.parametrize("width", [360, 1280])
@pytest.mark.parametrize("language", ["fr", "en"])
def test_the_owner_fills_and_submits_the_form(
    browser, live_server, shop, axe_source, language, width
):
    owner = make_member(shop, "owner", f"owner-{language}-{width}@example.com").user
    session = signed_in(owner).cookies[settings.SESSION_COOKIE_NAME].value
    context = browser.new_context(
        locale="fr-FR" if language == "fr" else "en-GB",
        viewport={"width": width, "height": 800},
        bypass_csp=True,
    )
    context.add_cookies(
        [
            {"name": settings.SESSION_COOKIE_NAME, "value": session, "url": live_server.url},
            {"name": settings.LANGUAGE_COOKIE_NAME, "value": language, "url": live_server.url},
        ]
    )
    page = context.new_page()
    words = WORDS[language]
    name = f"activation-{language}-{width}"
    try:
        page.goto(f"{live_server.url}/dashboard/test/")
        assert fits(page)
        screenshot(page, f"{name}-home")
        page.locator(".activation-standing a.btn").click()
        page.wait_for_url("**/dashboard/settings/activation/")
        assert page.get_by_role("heading", name=words["heading"]).is_visible()
        assert fits(page)
        assert axe_violations(page, axe_source) == []
        screenshot(page, f"{name}-empty")

        # A document over 5 MB: refused here, in words, and the form is not sent.
        large = {"name": "rccm.pdf", "mimeType": "application/pdf", "buffer": PDF * 200_000}
        page.set_input_files("#id_rccm_certificate", large)
        alert = page.locator("#id_rccm_certificate ~ .errorlist[role=alert]")
        alert.wait_for()
        assert words["too_large"] in alert.inner_text()
        screenshot(page, f"{name}-too-large")
        page.locator("button[value=save]").click()
        assert page.evaluate("!document.querySelector('form.activation').checkValidity()")
        assert not ActivationApplication.objects.filter(merchant=shop).exists()

        for field, value in {
            "legal_name": "Boutique Gombe SARL",
            "rccm_number": "CD/KNG/RCCM/23-B-01234",
            "id_nat": "01-83-N12345K",
            "nif": "A1234567B",
            "address": "12, avenue du Commerce, Gombe",
            "city": "Kinshasa",
            "activity": "Vente de pagnes",
            "website": "facebook.com/boutiquegombe",
            "representative_name": "Mado Kabila",
            "representative_phone": "+243 81 234 5678",
            "monthly_volume": "25 000 000",
            "account_phone": "0812 345 678",
        }.items():
            page.fill(f"#id_{field}", value)
        page.select_option("#id_monthly_volume_currency", "CDF")
        page.check("input[name=account_type][value=mobile_money]")
        page.select_option("#id_account_currency", "CDF")
        page.set_input_files(
            "#id_rccm_certificate",
            {"name": "rccm.pdf", "mimeType": "application/pdf", "buffer": PDF},
        )
        assert alert.is_hidden()
        page.set_input_files(
            "#id_id_nat_certificate",
            {"name": "idnat.png", "mimeType": "image/png", "buffer": PNG},
        )
        page.set_input_files(
            "#id_representative_id",
            {"name": "passeport.jpg", "mimeType": "image/jpeg", "buffer": JPEG},
        )
        screenshot(page, f"{name}-filled")
        page.locator("button[value=submit]").click()
        page.get_by_text(words["submitted"]).wait_for()
        assert page.locator(".activation-status .badge").inner_text() == words["status"]
        assert fits(page)
        assert axe_violations(page, axe_source) == []
        screenshot(page, f"{name}-submitted")

        application = ActivationApplication.objects.get(merchant=shop)
        assert application.status == "submitted" and application.language == language
        assert application.settlement_account.phone == "+243812345678"
        assert re.search(r"···5678", page.locator(".activation-status").inner_text())
    finally:
        context.close()
