"""The service's home page: where a merchant lands first and where the admin's "View site" link
leads, in the visitor's language. It leads to the dashboard first (sign in, sign up), then to
the API reference; the staff's admin is a footnote."""

import re

import pytest
from django.test import Client

from tests.dashboard.conftest import make_user
from tests.dashboard.pages.test_browser import fits
from tests.helpers import screenshot

pytestmark = pytest.mark.django_db


def links(html: str) -> list[str]:
    return re.findall(r'<a (?:class="[^"]*" )?href="([^"]+)"', html)


def test_the_home_page_leads_to_the_dashboard_then_the_api_reference():
    french = Client().get("/")
    assert french.status_code == 200
    hrefs = links(french.text)
    assert hrefs[:2] == ["/accounts/login/", "/accounts/signup/"]
    assert hrefs.index("/v1/docs") < hrefs.index("/admin/") == len(hrefs) - 1
    assert "Se connecter au tableau de bord" in french.text and '<html lang="fr">' in french.text
    assert "Référence de l’API" in french.text
    english = Client().get("/", HTTP_ACCEPT_LANGUAGE="en").text
    assert "Create a merchant account" in english and '<html lang="en">' in english
    for href in hrefs:
        assert Client().get(href, follow=True).status_code == 200, href


def test_a_signed_in_member_is_led_to_the_dashboard():
    client = Client()
    client.force_login(make_user("home@example.com"))
    hrefs = links(client.get("/").text)
    assert hrefs[0] == "/dashboard/" and "/accounts/signup/" not in hrefs


def test_the_admins_view_site_link_leads_home(staff):
    page = staff.get("/admin/").text
    view_site = re.search(r'<a href="([^"]+)">Voir le site</a>', page)
    assert view_site and view_site[1] == "/"
    assert staff.get(view_site[1]).status_code == 200


@pytest.mark.browser
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("language", ["fr", "en"])
@pytest.mark.parametrize("width", [360, 1280])
def test_what_a_merchant_sees_first_is_the_way_in(browser, live_server, language, width):
    """The first link on the screen is the sign-in; the admin's lies below the fold's content."""
    context = browser.new_context(
        locale="fr-FR" if language == "fr" else "en-GB", viewport={"width": width, "height": 760}
    )
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/")
        first = page.get_by_role("link").first
        assert first.get_attribute("href") == "/accounts/login/"
        words = {"fr": "Créer un compte marchand", "en": "Create a merchant account"}[language]
        page.get_by_role("link", name=words).wait_for()
        admin = page.locator('a[href="/admin/"]').bounding_box()
        reference = page.locator('a[href="/v1/docs"]').bounding_box()
        assert admin["y"] > reference["y"]
        assert fits(page)
        screenshot(page, f"home-{language}-{width}")
        first.click()
        page.wait_for_url("**/accounts/login/**")
    finally:
        context.close()
