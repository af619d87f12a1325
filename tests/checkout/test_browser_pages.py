"""Every page a customer can see, in headless Chromium at 360 px (a small phone) and 1280 px:
axe-core finds no accessibility violation, the first load weighs at most 15 KB with the page's
Content-Security-Policy enforced, and a screenshot of each is kept in tests/artifacts/."""

import pytest

from checkout import services
from payments.providers.base import ProviderOutcome
from payments.services import charges
from tests.factories import expire_session, make_session, settle, with_support_contact
from tests.helpers import axe_violations, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTHS = (360, 1280)
FIRST_LOAD_LIMIT = 15_000  # bytes: HTML, stylesheet and script together, before compression
MM = {"payment_method": "mobile_money", "phone": "+243971234567", "network": "AIRTEL_MONEY"}
SUBMIT_MM = 'form[data-method="mobile_money"] button[type=submit]'


def _attempt(session, **fields):
    return services.session_attempt_create(session_id=session.id, **{**MM, **fields})


def page_address(name: str, merchant, base: str) -> str:
    """A session in the state that shows the page `name`; the address that shows it."""
    session = make_session(merchant, customer_phone="+243971234567")
    path = f"/pay/{session.id}"
    if name == "pay-usd":
        session = make_session(merchant, currency="USD", amount=2000)
        path = f"/pay/{session.id}"
    elif name == "declined":
        declined = settle(
            _attempt(session, phone="+243971234001"), "declined", "insufficient_funds"
        )
        path += f"?attempt={declined.id}"
    elif name == "waiting":
        _attempt(session)
    elif name == "waiting-card":
        session = make_session(merchant, currency="USD", amount=1999)
        card = services.session_attempt_create(session_id=session.id, payment_method="card")
        path = f"/pay/{session.id}/card-return?transaction_id={card.id}"
    elif name == "complete":
        settle(_attempt(session), "succeeded")
    elif name == "expired":
        expire_session(session)
    elif name == "late-payment":
        late = _attempt(session)
        expire_session(session)
        charges.charge_apply_outcome(charge_id=late.id, outcome=ProviderOutcome(status="succeeded"))
        path += f"?attempt={late.id}"
    elif name == "not-found":
        path = "/pay/cs_doesnotexist000000000000"
    return base + path


def open_page(browser, width: int, *, bypass_csp: bool):
    context = browser.new_context(
        locale="fr-FR", viewport={"width": width, "height": 800}, bypass_csp=bypass_csp
    )
    return context, context.new_page()


def assert_accessible_at_both_widths(browser, axe_source, name: str, show) -> None:
    """`show(page)` brings the page to the state to check; then axe and a screenshot per width."""
    for width in WIDTHS:
        context, page = open_page(browser, width, bypass_csp=True)
        try:
            show(page)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, name
            screenshot(page, f"page-{name}-{width}")
            assert axe_violations(page, axe_source) == [], name
        finally:
            context.close()


PAGES = [
    "pay",
    "pay-usd",
    "declined",
    "waiting",
    "waiting-card",
    "complete",
    "expired",
    "late-payment",
    "not-found",
]


@pytest.mark.parametrize("name", PAGES)
def test_page_is_accessible_and_light(browser, axe_source, merchant, public_base_url, name):
    with_support_contact(merchant, email="aide@boutique.cd", phone="+243 81 234 5678")
    url = page_address(name, merchant, public_base_url)
    assert_accessible_at_both_widths(browser, axe_source, name, lambda page: page.goto(url))

    # The first load of a new visitor, with the page's own Content-Security-Policy in force.
    context, page = open_page(browser, 360, bypass_csp=False)
    try:
        requests, refused = [], []
        page.on("requestfinished", lambda request: requests.append(request))
        page.on(
            "console",
            lambda m: refused.append(m.text) if "Content Security Policy" in m.text else None,
        )
        page.goto(url, wait_until="load")
        page.wait_for_timeout(200)
        loaded = [r for r in requests if r.resource_type in ("document", "stylesheet", "script")]
        assert sorted(r.resource_type for r in loaded) == ["document", "script", "stylesheet"]
        assert len(requests) == len(loaded), [r.url for r in requests]  # no favicon, no image
        weight = sum(r.sizes()["responseBodySize"] for r in loaded)
        assert weight <= FIRST_LOAD_LIMIT, (name, weight)
        assert refused == [], refused  # nothing refused by the Content-Security-Policy
    finally:
        context.close()


def test_form_errors_are_accessible(browser, axe_source, merchant, public_base_url):
    with_support_contact(merchant, email="aide@boutique.cd")
    url = page_address("pay", merchant, public_base_url)

    def submit_a_wrong_number(page):
        page.goto(url)
        page.locator("#id_phone").fill("12345")
        page.locator(SUBMIT_MM).click()
        page.locator("#phone-error").wait_for()

    assert_accessible_at_both_widths(browser, axe_source, "invalid-phone", submit_a_wrong_number)


def test_card_redirect_page_is_accessible(browser, axe_source, merchant, public_base_url):
    with_support_contact(merchant, email="aide@boutique.cd")

    def stop_before_the_card_provider(page):
        session = make_session(merchant, currency="USD", amount=1999)
        page.goto(f"{public_base_url}/pay/{session.id}")
        # The page posts itself to the card provider at once: without its script it stays here.
        page.route("**/checkout.js", lambda route: route.fulfill(status=200, body=""))
        page.locator('form[data-method="card"] button[type=submit]').click()
        page.get_by_text("Redirection vers la page de paiement sécurisée").wait_for()

    assert_accessible_at_both_widths(
        browser, axe_source, "card-redirect", stop_before_the_card_provider
    )


def test_a_declined_attempt_keeps_the_number_for_the_retry(
    page, merchant, public_base_url, settings
):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    session = make_session(merchant)
    page.goto(f"{public_base_url}/pay/{session.id}")
    page.locator("#id_phone").fill("0971 234 001")
    page.locator(SUBMIT_MM).click()
    page.get_by_text("Validez le paiement sur votre téléphone").wait_for()
    charge = session.charges.get()
    charges.charge_request_payment(charge_id=charge.id)
    assert charges.charge_refresh(charge_id=charge.id).status == "declined"
    page.get_by_role("alert").wait_for()
    assert page.locator("#id_phone").input_value() == "+243971234001"
    screenshot(page, "checkout-declined-number-kept")
    page.locator(SUBMIT_MM).click()  # the same number again, nothing typed
    page.get_by_text("Validez le paiement sur votre téléphone").wait_for()
    retry = session.charges.exclude(pk=charge.id).get()
    assert (retry.phone, retry.network) == ("+243971234001", "AIRTEL_MONEY")


def test_operator_badges_are_drawn_in_their_colours(page, merchant, public_base_url):
    page.goto(f"{public_base_url}/pay/{make_session(merchant).id}")
    badges = page.locator(".networks .operator")
    assert badges.all_inner_texts() == ["Airtel Money", "Vodacom M-Pesa", "Orange Money"]
    colours = [
        badge.evaluate("e => [getComputedStyle(e).backgroundColor, getComputedStyle(e).color]")
        for badge in badges.all()
    ]
    assert colours == [
        ["rgb(228, 0, 0)", "rgb(255, 255, 255)"],
        ["rgb(0, 122, 61)", "rgb(255, 255, 255)"],
        ["rgb(255, 121, 0)", "rgb(0, 0, 0)"],
    ]


def test_expired_page_icon_is_drawn_without_fonts(page, merchant, public_base_url):
    session = make_session(merchant)
    expire_session(session)
    page.goto(f"{public_base_url}/pay/{session.id}")
    icon = page.locator(".state .icon svg")
    box = icon.bounding_box()
    assert box and box["width"] == 30 and box["height"] == 30
    screenshot(page, "checkout-expired-icon")


def test_favicon_never_404s(page, public_base_url):
    response = page.goto(f"{public_base_url}/favicon.ico")
    assert response.status == 200 and response.headers["content-type"] == "image/x-icon"
