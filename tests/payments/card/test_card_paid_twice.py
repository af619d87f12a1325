"""A card charge paid on two of its attempts (a customer who kept an older card page open in
another tab and paid on both): the payment that made the charge succeed stands; the other one is
given back once, as a late payment naming that payment, not counted in amount_refunded."""

import html as html_lib
import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from payments.models import (
    Charge,
    ExtraPayment,
    LedgerEntry,
    PaymentMethod,
    Refund,
)
from payments.providers.base import PaymentQuery
from payments.representations import refund_repr
from payments.services import charges, ledger, refunds
from sandbox.models import SandboxTransaction
from sandbox.providers import SandboxCard
from tests.factories import make_session
from tests.helpers import admin_url, decide_url, open_payment_page, refund_event_types, reply_form

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser_client() -> Client:
    """A browser coming from the card provider's pages: it carries none of our CSRF tokens."""
    return Client(enforce_csrf_checks=True)


def signed_form(client: Client, session_id: str) -> dict[str, str]:
    """The checkout's card step: the signed form our page auto-submits to the card provider."""
    checkout = client.get(f"/pay/{session_id}").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', checkout).group(1)
    page = client.post(f"/pay/{session_id}/card", {"csrfmiddlewaretoken": token})
    assert page.status_code == 200, page.content
    pairs = re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', page.text)
    return {html_lib.unescape(k): html_lib.unescape(v) for k, v in pairs}


def two_tabs(client: Client, merchant):
    """A checkout session whose customer opened the card page, came back to our page twenty
    minutes later and opened it again: two pages of two attempts of one charge, both open."""
    session = make_session(merchant, amount=1999, currency="USD")
    with time_machine.travel(timezone.now() - timedelta(minutes=20), tick=False):
        first = signed_form(client, session.id)
        old_page = open_payment_page(client, first)
    second = signed_form(client, session.id)
    new_page = open_payment_page(client, second)
    assert old_page.status_code == new_page.status_code == 200
    return Charge.objects.get(), old_page, new_page


def answer(client: Client, page, outcome: str = "accept") -> dict[str, str]:
    """The customer's choice on a card page; returns the signed reply (not posted yet)."""
    reply = client.post(decide_url(page.text), {"outcome": outcome})
    return reply_form(reply.text)


def post_reply(client: Client, reply) -> None:
    action, fields = reply
    assert client.post(urlsplit(action).path, fields).status_code == 303


def payment_of(page) -> SandboxTransaction:
    """The card provider's record of the attempt a page is for."""
    transaction_id = re.search(r"/sandbox/card/pay/([^/]+)/decide", page.text).group(1)
    return SandboxTransaction.objects.get(pk=transaction_id)


def test_a_payment_on_an_older_tab_after_the_charge_succeeded_is_given_back_once(
    browser_client, merchant, api
):
    charge, old_page, new_page = two_tabs(browser_client, merchant)
    post_reply(browser_client, answer(browser_client, new_page))
    charge.refresh_from_db()
    kept = payment_of(new_page)
    assert (charge.status, charge.provider_reference) == ("succeeded", kept.id)

    # The older tab, still open, is paid too; its reply comes back after the success.
    late_reply = answer(browser_client, old_page)
    post_reply(browser_client, late_reply)
    other = payment_of(old_page)
    charge.refresh_from_db()
    assert (charge.status, charge.provider_reference) == ("succeeded", kept.id)
    [refund] = charge.refunds.all()
    assert (refund.reason, refund.amount, refund.payment_reference) == (
        "late_payment",
        1999,
        other.id,
    )
    assert refund_repr(refund)["operator_reference"] == other.id
    assert charge.amount_refunded == 0  # the accepted payment is still wholly refundable
    rows = LedgerEntry.objects.filter(refund=refund)
    assert sorted((e.type, e.amount) for e in rows) == [("late_payment", 1999), ("refund", -1999)]

    # Found again (the reply brought back twice, a check, a statement): nothing more.
    post_reply(browser_client, late_reply)
    charges.charge_payment_confirmed(charge_id=charge.id, reference=other.id, answer={})
    assert charge.refunds.count() == 1 and ExtraPayment.objects.get().refund == refund

    # Sent to the card provider (by the task, here at once) for THAT payment.
    refunds.refund_send(refund_id=refund.id)
    asked = SandboxTransaction.objects.get(kind="refund", reference=refund.id)
    assert asked.request["payment"] == other.id
    assert refund_event_types(refund.id) == ["refund.succeeded"]
    body = api.get(f"/v1/charges/{charge.id}/refunds").json()["data"]
    assert [(r["reason"], r["operator_reference"]) for r in body] == [("late_payment", other.id)]

    # The merchant can still refund the accepted payment in full, and no more than that.
    full = api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json")
    assert full.status_code == 201 and full.json()["amount"] == 1999, full.content
    again = api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json")
    assert again.json()["error"]["code"] == "charge_not_refundable"
    charge.refresh_from_db()
    assert charge.amount_refunded == 1999
    assert ledger.ledger_check() == []


def test_both_tabs_paid_before_any_reply_came_back(browser_client, merchant):
    """Both pages paid while the charge is pending: the first status check settles the charge
    on the first payment and gives the other back in the same step."""
    charge, old_page, new_page = two_tabs(browser_client, merchant)
    first_reply = answer(browser_client, new_page)
    answer(browser_client, old_page)  # this tab's reply is lost (the browser was closed)
    post_reply(browser_client, first_reply)
    charge.refresh_from_db()
    kept, other = payment_of(new_page), payment_of(old_page)
    assert (charge.status, charge.provider_reference) == ("succeeded", kept.id)
    [refund] = charge.refunds.all()
    assert (refund.reason, refund.payment_reference) == ("late_payment", other.id)
    assert charge.amount_refunded == 0


def test_the_sandbox_card_provider_reports_every_attempt_paid(browser_client, merchant):
    charge, old_page, new_page = two_tabs(browser_client, merchant)
    answer(browser_client, new_page)
    answer(browser_client, old_page)
    outcome = SandboxCard().check_status(
        PaymentQuery(
            charge_id=charge.id,
            amount=charge.amount,
            currency=charge.currency,
            provider_reference="",
            requested_at=charge.created_at,
            attempt=charge.provider_attempt,
        )
    )
    assert (outcome.status, outcome.provider_reference) == ("succeeded", payment_of(new_page).id)
    assert [p.reference for p in outcome.other_payments] == [payment_of(old_page).id]


def test_a_decline_on_the_older_tab_gives_nothing_back(browser_client, merchant):
    charge, old_page, new_page = two_tabs(browser_client, merchant)
    post_reply(browser_client, answer(browser_client, new_page))
    post_reply(browser_client, answer(browser_client, old_page, "decline"))
    charge.refresh_from_db()
    assert charge.status == "succeeded" and not charge.refunds.exists()
    assert not ExtraPayment.objects.exists()


def test_the_other_payments_refund_refused_is_given_back_again_from_the_balance(
    browser_client, merchant, staff
):
    charge, old_page, new_page = two_tabs(browser_client, merchant)
    post_reply(browser_client, answer(browser_client, new_page))
    post_reply(browser_client, answer(browser_client, old_page))
    [refund] = charge.refunds.all()
    Refund.objects.filter(pk=refund.pk).update(metadata={"sandbox_refund": "fail"})
    assert refunds.refund_send(refund_id=refund.id).status == "failed"
    charge.refresh_from_db()
    assert charge.amount_refunded == 0  # it never counted, so failing frees nothing there

    response = staff.post(
        "/admin/payments/charge/",
        {"action": "give_back_again", "_selected_action": [charge.id]},
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 302
    again = charge.refunds.exclude(pk=refund.pk).get()
    assert (again.reason, again.payment_reference, again.status) == (
        "late_payment",
        refund.payment_reference,
        "pending",
    )
    assert charge.payment_method == PaymentMethod.CARD
    assert ledger.ledger_check() == []


def test_staff_find_the_charge_paid_twice_with_both_payments(browser_client, merchant, staff):
    charge, old_page, new_page = two_tabs(browser_client, merchant)
    post_reply(browser_client, answer(browser_client, new_page))
    post_reply(browser_client, answer(browser_client, old_page))
    listed = staff.get("/admin/payments/charge/?late_payment=yes")
    assert [row.id for row in listed.context["cl"].result_list] == [charge.id]
    page = html_lib.unescape(
        staff.get(admin_url(charge), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    )
    kept, other = payment_of(new_page), payment_of(old_page)
    assert f"{kept.id}</code>: kept: the charge's payment" in page
    assert f"{other.id}</code>: Confirmed, given back" in page
    assert f'"transaction": "{other.id}"' in page  # the provider's answer about the other one
    french = html_lib.unescape(staff.get(admin_url(charge)).content.decode())
    assert "Confirmé, remboursé" in french
