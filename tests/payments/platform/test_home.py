"""The service's home page: where the admin's "View site" link leads, in the visitor's language,
with the way to the API reference and to the admin."""

import re

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def links(html: str) -> list[str]:
    return re.findall(r'<a href="([^"]+)"', html)


def test_the_home_page_leads_to_the_api_reference_and_the_admin():
    french = Client().get("/")
    assert french.status_code == 200
    assert {"/v1/docs", "/v1/openapi.json", "/admin/"} <= set(links(french.text))
    assert "Référence de l’API" in french.text and '<html lang="fr">' in french.text
    english = Client().get("/", HTTP_ACCEPT_LANGUAGE="en").text
    assert "API reference" in english and '<html lang="en">' in english
    for href in links(french.text):
        assert Client().get(href, follow=True).status_code == 200, href


def test_the_admins_view_site_link_leads_home(staff):
    page = staff.get("/admin/").text
    view_site = re.search(r'<a href="([^"]+)">Voir le site</a>', page)
    assert view_site and view_site[1] == "/"
    assert staff.get(view_site[1]).status_code == 200
