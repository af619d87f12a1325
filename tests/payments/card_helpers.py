"""Shared steps of the card tests: the merchant's form, the test card provider, its reply."""

import html
import re

from django.conf import settings
from django.test import Client

from payments.providers import secure_acceptance

INPUT_RE = re.compile(r'<input type="hidden" name="([^"]*)" value="([^"]*)">')
FORM_ACTION_RE = re.compile(r'<form id="reply" method="post" action="([^"]*)">')
DECIDE_RE = re.compile(r'<form method="post" action="([^"]*/decide)">')


def create_card_charge(api, amount: int = 1999, **extra) -> dict:
    response = api.post(
        "/v1/charges",
        {"amount": amount, "currency": "USD", "payment_method": "card", **extra},
        format="json",
    )
    assert response.status_code == 201, response.content
    return response.json()


def resign(fields: dict[str, str], secret_key: str | None = None) -> dict[str, str]:
    """The fields signed again (what someone holding the key could send)."""
    fields = {k: v for k, v in fields.items() if k != "signature"}
    fields["signature"] = secure_acceptance.sign(
        fields, secret_key or settings.SANDBOX_CARD_SECRET_KEY
    )
    return fields


def open_payment_page(client: Client, params: dict[str, str]):
    return client.post("/sandbox/card/pay", params)


def decide_url(page_html: str) -> str:
    match = DECIDE_RE.search(page_html)
    assert match, page_html
    return html.unescape(match.group(1))


def reply_form(reply_html: str) -> tuple[str, dict[str, str]]:
    """The action and fields of the auto-submitting reply form."""
    action = FORM_ACTION_RE.search(reply_html)
    assert action, reply_html
    fields = {html.unescape(k): html.unescape(v) for k, v in INPUT_RE.findall(reply_html)}
    return html.unescape(action.group(1)), fields


def pay(client: Client, params: dict[str, str], outcome: str) -> tuple[str, dict[str, str]]:
    """Submit the merchant's form to the test card provider and click one outcome."""
    page = open_payment_page(client, params)
    assert page.status_code == 200, page.content
    reply = client.post(decide_url(page.content.decode()), {"outcome": outcome})
    assert reply.status_code == 200, reply.content
    return reply_form(reply.content.decode())
