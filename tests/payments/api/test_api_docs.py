"""/v1/docs opens offline: every asset comes from this host (drf-spectacular-sidecar through
whitenoise), no web fonts or CDN, and its Content-Security-Policy allows only this host."""

import re
from urllib.parse import urlsplit

import pytest
from django.core.management import call_command
from django.test import Client

REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
ASSET = re.compile(r"""(?:src|href)\s*=\s*["']([^"']+)["']""")


def test_docs_page_references_only_our_own_assets_and_they_are_served(settings, tmp_path):
    # Collected static files (docs/operations/production.md), here served by whitenoise.
    settings.STATIC_ROOT = tmp_path
    call_command("collectstatic", "--noinput", verbosity=0)
    client = Client()
    response = client.get("/v1/docs")
    assert response.status_code == 200
    html = response.content.decode()
    assert "fonts.googleapis" not in html and "cdn" not in html.lower()
    assert not re.search(r"(?:https?:)?//", html), html
    assets = [url for url in ASSET.findall(html) if not url.startswith("data:")]
    assert any(url.endswith("redoc.standalone.js") for url in assets), assets
    for url in assets:
        assert url.startswith("/") and not urlsplit(url).netloc, url
        served = client.get(url)
        assert served.status_code == 200, url
        assert b"".join(served.streaming_content if served.streaming else [served.content])
    assert 'spec-url="/v1/openapi.json"' in html
    assert client.get("/v1/openapi.json").status_code == 200


def test_docs_page_policy_allows_only_this_host():
    policy = Client().get("/v1/docs")["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'self'"
    assert directives["script-src"] == "'self'"
    for sources in directives.values():
        for source in sources.split():
            assert source in {"'self'", "'none'", "'unsafe-inline'", "data:", "blob:"}, policy


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_docs_render_in_a_browser_without_leaving_this_host(live_server, page):
    own = urlsplit(live_server.url).netloc
    attempted, fetched, refused = [], [], []

    def foreign(url: str) -> bool:
        return urlsplit(url).scheme in ("http", "https") and urlsplit(url).netloc != own

    page.on("request", lambda r: foreign(r.url) and attempted.append(r.url))
    page.on("requestfinished", lambda r: foreign(r.url) and fetched.append(r.url))
    page.on(
        "console",
        lambda message: "Content Security Policy" in message.text and refused.append(message.text),
    )
    page.goto(f"{live_server.url}/v1/docs")
    page.get_by_role("heading", name=re.compile("Payments API")).first.wait_for()
    page.get_by_text("/v1/charges").first.wait_for(state="attached")
    # Real examples, not samples made up from the types.
    page.get_by_text("Commande 42").first.wait_for(state="attached")
    page.get_by_text("missing_api_key").first.wait_for(state="attached")
    assert "property1" not in page.content()
    # Nothing is fetched from elsewhere; Redoc's bundled "powered by" logo is the one outside
    # address it tries, and the page's policy refuses it (Redoc then hides the image).
    assert fetched == []
    assert set(attempted) <= {REDOC_LOGO}, attempted
    assert all(REDOC_LOGO in message for message in refused), refused
