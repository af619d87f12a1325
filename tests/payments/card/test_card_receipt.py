"""Our receipt page: the signed reply is a hint, the status check decides."""

from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from checkout.models import CheckoutSession, SessionStatus
from payments.models import Charge
from payments.services import charges
from tests.factories import card_charge_via_api
from tests.helpers import pay, resign

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser_client() -> Client:
    """A browser coming from the card provider's pages: it carries none of our CSRF tokens."""
    return Client(enforce_csrf_checks=True)


def charge_of(body: dict) -> Charge:
    return Charge.objects.get(pk=body["id"])


def assert_refused_and_untouched(response, charge_id: str):
    assert response.status_code == 400
    assert "Nous n’avons pas pu confirmer" in response.content.decode()
    charge = Charge.objects.get(pk=charge_id)
    assert charge.status == "pending" and charge.check_count == 0


@pytest.mark.parametrize(
    ("outcome", "status", "failure_code"),
    [
        ("accept", "succeeded", None),
        ("decline", "declined", "card_declined"),
        ("error", "failed", "processing_error"),
        ("cancel", "failed", "canceled"),
        ("review", "pending", None),
    ],
)
def test_decision_reaches_the_matching_status(api, browser_client, outcome, status, failure_code):
    body = card_charge_via_api(api)
    action, reply = pay(browser_client, body["next_action"]["params"], outcome)
    response = browser_client.post(urlsplit(action).path, reply)
    assert response.status_code == 200  # no return_url: our own neutral page
    page = response.content.decode()
    assert "Vous pouvez fermer cette page." in page
    assert f'data-status="{status}"' in page
    got = api.get(f"/v1/charges/{body['id']}").json()
    assert got["status"] == status and got["failure_code"] == failure_code
    assert ("next_action" in got) == (status == "pending")


def test_succeeded_charge_records_one_event(api, browser_client):
    from webhooks.models import Event

    body = card_charge_via_api(api)
    action, reply = pay(browser_client, body["next_action"]["params"], "accept")
    browser_client.post(urlsplit(action).path, reply)
    browser_client.post(urlsplit(action).path, reply)  # the same reply again changes nothing
    assert list(Event.objects.values_list("type", flat=True)) == ["charge.succeeded"]
    assert charge_of(body).provider_reference == reply["transaction_id"]


def test_redirects_to_return_url_keeping_its_query(api, browser_client):
    body = card_charge_via_api(api, return_url="https://shop.example/done?order=7&lang=fr")
    action, reply = pay(browser_client, body["next_action"]["params"], "decline")
    response = browser_client.post(urlsplit(action).path, reply)
    assert response.status_code == 303
    location = urlsplit(response["Location"])
    assert (location.scheme, location.netloc, location.path) == ("https", "shop.example", "/done")
    assert parse_qs(location.query) == {
        "order": ["7"],
        "lang": ["fr"],
        "transaction_id": [body["id"]],
        "status": ["declined"],
    }


def test_checkout_session_charge_goes_back_to_the_session_page(merchant, browser_client):
    now = timezone.now()
    session = CheckoutSession.objects.create(
        merchant=merchant,
        amount=2500,
        currency="USD",
        success_url="https://shop.example/ok",
        cancel_url="https://shop.example/ko",
        payment_methods=["card"],
        expires_at=now + timedelta(hours=1),
    )
    charge = charges.charge_create(
        merchant=merchant,
        livemode=False,
        amount=2500,
        currency="USD",
        payment_method="card",
        return_url="https://shop.example/ignored",
        checkout_session=session,
    )
    action, reply = pay(browser_client, charge.next_action["params"], "accept")
    response = browser_client.post(urlsplit(action).path, reply)
    assert response.status_code == 303
    assert response["Location"] == f"/pay/{session.id}/card-return?transaction_id={charge.id}"
    session.refresh_from_db()
    assert session.status == SessionStatus.COMPLETE


def test_tampered_reply_is_refused_and_the_charge_stays_pending(api, browser_client):
    body = card_charge_via_api(api)
    action, reply = pay(browser_client, body["next_action"]["params"], "decline")
    tampered = {**reply, "decision": "ACCEPT", "reason_code": "100"}
    assert_refused_and_untouched(browser_client.post(urlsplit(action).path, tampered), body["id"])


@pytest.mark.parametrize("drop", ["signature", "signed_field_names", "req_reference_number"])
def test_reply_missing_its_signature_parts_is_refused(api, browser_client, drop):
    body = card_charge_via_api(api)
    action, reply = pay(browser_client, body["next_action"]["params"], "accept")
    partial = {k: v for k, v in reply.items() if k != drop}
    response = browser_client.post(urlsplit(action).path, partial)
    assert response.status_code == 400
    assert charge_of(body).status == "pending"


def test_reply_signed_with_another_key_is_refused(api, browser_client):
    body = card_charge_via_api(api)
    action, reply = pay(browser_client, body["next_action"]["params"], "decline")
    forged = resign({**reply, "decision": "ACCEPT"}, secret_key="guessed-key")
    assert_refused_and_untouched(browser_client.post(urlsplit(action).path, forged), body["id"])


@pytest.mark.parametrize(
    ("field", "value"), [("amount", "0.99"), ("currency", "EUR"), ("transaction_uuid", "other")]
)
def test_payment_made_for_other_terms_is_refused(api, browser_client, field, value):
    # Someone holding the sandbox key changes the form; the provider then echoes what it got.
    body = card_charge_via_api(api)
    params = resign({**body["next_action"]["params"], field: value})
    action, reply = pay(browser_client, params, "accept")
    assert reply[f"req_{field}"] == value
    assert_refused_and_untouched(browser_client.post(urlsplit(action).path, reply), body["id"])


def test_signed_reply_with_mismatching_amount_is_refused(api, browser_client):
    body = card_charge_via_api(api)
    action, reply = pay(browser_client, body["next_action"]["params"], "accept")
    forged = resign({**reply, "req_amount": "0.01"}, settings.SANDBOX_CARD_SECRET_KEY)
    assert_refused_and_untouched(browser_client.post(urlsplit(action).path, forged), body["id"])


def test_reply_for_a_charge_that_is_not_ours_or_not_a_card_charge_is_refused(
    api, browser_client, merchant
):
    body = card_charge_via_api(api)
    action, reply = pay(browser_client, body["next_action"]["params"], "accept")
    unknown = resign(
        {**reply, "req_reference_number": "ch_doesnotexist000000000000"},
        settings.SANDBOX_CARD_SECRET_KEY,
    )
    assert browser_client.post(urlsplit(action).path, unknown).status_code == 400
    mobile = charges.charge_create(
        merchant=merchant,
        livemode=False,
        amount=1000,
        currency="CDF",
        phone="+243970000000",
        network="AIRTEL_MONEY",
    )
    other = resign({**reply, "req_reference_number": mobile.id}, settings.SANDBOX_CARD_SECRET_KEY)
    assert browser_client.post(urlsplit(action).path, other).status_code == 400
    assert charge_of(body).status == "pending"


def test_the_status_check_decides_not_the_reply(api, browser_client):
    # A validly signed reply claiming ACCEPT while the provider recorded DECLINE.
    body = card_charge_via_api(api)
    action, reply = pay(browser_client, body["next_action"]["params"], "decline")
    claimed = resign(
        {**reply, "decision": "ACCEPT", "reason_code": "100"}, settings.SANDBOX_CARD_SECRET_KEY
    )
    response = browser_client.post(urlsplit(action).path, claimed)
    assert response.status_code == 200
    assert charge_of(body).status == "declined"


def test_receipt_needs_a_post(browser_client):
    assert browser_client.get("/card/receipt").status_code == 405
    assert browser_client.post("/card/receipt", {}).status_code == 400
