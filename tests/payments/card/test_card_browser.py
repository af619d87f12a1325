"""The direct card flow in a real browser: the merchant's form, the test card provider's page,
the signed reply through the browser, our receipt page and the redirect back to the merchant."""

import html
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.factories import card_charge_via_api
from tests.helpers import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def merchant_page(next_action: dict) -> str:
    """What a merchant's site renders: one hidden input per params entry, POST to payment_url."""
    inputs = "\n".join(
        f'<input type="hidden" name="{html.escape(name)}" value="{html.escape(value)}">'
        for name, value in next_action["params"].items()
    )
    return (
        "<!doctype html><html><body><h1>Boutique Gombe</h1>"
        f'<form id="pay" method="post" action="{html.escape(next_action["payment_url"])}">'
        f'{inputs}<button type="submit">Payer par carte</button></form></body></html>'
    )


@pytest.mark.parametrize(
    ("outcome", "status", "failure_code"),
    [
        ("accept", "succeeded", None),
        ("decline", "declined", "card_declined"),
        ("error", "failed", "processing_error"),
        ("cancel", "failed", "canceled"),
    ],
)
def test_direct_card_flow(api, page, public_base_url, outcome, status, failure_code):
    return_url = f"{public_base_url}/healthz?x=1"
    body = card_charge_via_api(api, amount=4250, return_url=return_url)
    assert body["next_action"]["payment_url"] == f"{public_base_url}/sandbox/card/pay"

    page.set_content(merchant_page(body["next_action"]))
    page.click("#pay button")
    page.wait_for_selector(f'[data-outcome="{outcome}"]')
    assert "42.50 USD" in page.inner_text("[data-amount]")
    assert page.inner_text("[data-reference]") == body["id"]
    screenshot(page, "card-sandbox-page")

    page.click(f'[data-outcome="{outcome}"]')
    page.wait_for_url(f"{public_base_url}/healthz?*")

    landed = urlsplit(page.url)
    assert parse_qs(landed.query) == {
        "x": ["1"],
        "transaction_id": [body["id"]],
        "status": [status],
    }
    got = api.get(f"/v1/charges/{body['id']}").json()
    assert got["status"] == status and got["failure_code"] == failure_code


def test_without_return_url_the_customer_sees_our_neutral_page(api, page, public_base_url):
    body = card_charge_via_api(api, amount=1999)
    page.set_content(merchant_page(body["next_action"]))
    page.click("#pay button")
    page.click('[data-outcome="accept"]')
    page.wait_for_url(f"{public_base_url}/card/receipt")
    assert "Paiement reçu" in page.inner_text("h1")
    assert "Vous pouvez fermer cette page." in page.inner_text("body")
    screenshot(page, "card-neutral-page")
    assert api.get(f"/v1/charges/{body['id']}").json()["status"] == "succeeded"


def test_tampered_form_gets_the_providers_refusal_page(api, page, public_base_url):
    body = card_charge_via_api(api, amount=1999)
    page.set_content(merchant_page(body["next_action"]))
    page.eval_on_selector('input[name="amount"]', "el => el.value = '0.01'")
    with page.expect_navigation() as navigation:
        page.click("#pay button")
    assert navigation.value.status == 403
    assert "102" in page.inner_text("[data-reason-code]")
    screenshot(page, "card-sandbox-refused")
    assert api.get(f"/v1/charges/{body['id']}").json()["status"] == "pending"
