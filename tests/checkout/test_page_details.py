"""The hosted page's details, through Django's test client: the number kept after a declined
attempt, the operators' badges, the merchant's support contact on every page, icons drawn in SVG
(no emoji font needed) and the favicon."""

import re
from urllib.parse import urlsplit

import pytest
from django.test import Client

from checkout import services
from tests.factories import (
    card_charge_via_api,
    expire_session,
    make_session,
    settle,
    with_support_contact,
)
from tests.helpers import pay

pytestmark = pytest.mark.django_db

MM = {"payment_method": "mobile_money", "network": "AIRTEL_MONEY"}


def phone_value(html: str) -> str:
    return re.search(r'<input type="tel" name="phone" value="([^"]*)"', html).group(1)


def test_after_a_declined_attempt_the_form_keeps_the_number(client, merchant):
    session = make_session(merchant, customer_phone="+243812345678")
    charge = services.session_attempt_create(session_id=session.id, phone="+243971234001", **MM)
    settle(charge, "declined", "insufficient_funds")
    page = client.get(f"/pay/{session.id}?attempt={charge.id}").text
    assert "avec le même numéro ou un autre" in page
    assert phone_value(page) == "+243971234001"
    # Without the failed attempt in the address, the merchant's number is offered as before.
    assert phone_value(client.get(f"/pay/{session.id}").text) == "+243812345678"


def test_operators_are_listed_as_badges_from_one_snippet(client, merchant):
    html = client.get(f"/pay/{make_session(merchant).id}").text
    networks = re.search(r'<ul class="networks"[^>]*>(.*?)</ul>', html, re.S).group(1)
    assert re.findall(r'<span class="operator operator-(\w+)">([^<]+)</span>', networks) == [
        ("airtel_money", "Airtel Money"),
        ("vodacom_mpesa", "Vodacom M-Pesa"),
        ("orange_money", "Orange Money"),
    ]


def page_states(merchant) -> dict[str, str]:
    """One session in each state a customer can see, by the page's name."""
    open_ = make_session(merchant)
    waiting = make_session(merchant)
    services.session_attempt_create(session_id=waiting.id, phone="+243971234567", **MM)
    complete = make_session(merchant)
    settle(
        services.session_attempt_create(session_id=complete.id, phone="+243971234567", **MM),
        "succeeded",
    )
    expired = make_session(merchant)
    expire_session(expired)
    return {
        "pay": f"/pay/{open_.id}",
        "waiting": f"/pay/{waiting.id}",
        "complete": f"/pay/{complete.id}",
        "expired": f"/pay/{expired.id}",
    }


def test_the_merchants_support_contact_is_on_every_page(client, merchant):
    with_support_contact(merchant, email="aide@boutique.cd", phone="+243 81 234 5678")
    for name, url in page_states(merchant).items():
        html = client.get(url).text
        support = re.search(r"<p class=\"support\" data-support>(.*?)</p>", html, re.S)
        assert support, name
        assert "Une question sur ce paiement" in support.group(1), name
        assert 'href="tel:+243812345678">+243 81 234 5678</a>' in support.group(1), name
        assert 'href="mailto:aide@boutique.cd">aide@boutique.cd</a>' in support.group(1), name


def test_no_support_line_when_the_merchant_has_none(client, merchant):
    with_support_contact(merchant, phone="+243 81 234 5678")
    html = client.get(f"/pay/{make_session(merchant).id}").text
    assert "mailto:" not in html and "tel:+243812345678" in html
    with_support_contact(merchant)
    assert "data-support" not in client.get(f"/pay/{make_session(merchant).id}").text


def test_icons_are_inline_svg_and_no_emoji(client, merchant):
    for name, url in page_states(merchant).items():
        html = client.get(url).text
        assert "&#8987;" not in html and "⌛" not in html and "&#10003;" not in html, name
        assert 'href="data:image/svg+xml,' in html, name  # the favicon: no request at all
    expired = client.get(page_states(merchant)["expired"]).text
    icon = re.search(r'<div class="icon">(<svg aria-hidden="true" .*?</svg>)</div>', expired)
    assert icon, expired


def test_favicon_ico_is_served_at_the_root(settings):
    response = Client().get("/favicon.ico")
    assert response.status_code == 200
    assert response["Content-Type"] == "image/x-icon"
    assert b"".join(response.streaming_content)[:4] == b"\x00\x00\x01\x00"  # an ICO file


def test_the_card_receipt_page_shows_the_support_contact(api, merchant):
    with_support_contact(merchant, email="aide@boutique.cd")
    body = card_charge_via_api(api)  # no return_url: the customer stays on our receipt page
    browser = Client()
    action, reply = pay(browser, body["next_action"]["params"], "accept")
    page = browser.post(urlsplit(action).path, reply).text
    assert "Vous pouvez fermer cette page." in page
    assert 'href="mailto:aide@boutique.cd"' in page and "Contactez Boutique Gombe" in page
