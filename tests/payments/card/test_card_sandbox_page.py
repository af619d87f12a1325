"""The built-in test card provider's hosted page behaves like the real one."""

import html as html_lib
import re
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
import time_machine
from django.conf import settings
from django.test import Client
from django.utils import timezone

from payments.models import Charge
from payments.providers import secure_acceptance
from sandbox.models import SandboxTransaction
from tests.factories import card_charge_via_api, make_session
from tests.helpers import decide_url, open_payment_page, pay, reply_form, resign

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser_client() -> Client:
    """A browser coming from the card provider's pages: it carries none of our CSRF tokens."""
    return Client(enforce_csrf_checks=True)


@pytest.fixture
def charge(api) -> dict:
    return card_charge_via_api(api, amount=1250)


@pytest.fixture
def params(charge) -> dict[str, str]:
    return charge["next_action"]["params"]


def card_records():
    return SandboxTransaction.objects.filter(kind=SandboxTransaction.Kind.CARD)


def assert_refused(response, status: int, reason_code: str):
    assert response.status_code == status, response.content
    assert f'<span class="code">{reason_code}</span>' in response.content.decode()
    assert not card_records().exists()


def test_signed_form_opens_the_payment_page_and_records_the_attempt(browser_client, charge, params):
    response = open_payment_page(browser_client, params)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Mode test" in page  # French by default (the request's locale)
    assert charge["id"] in page and "12.50 USD" in page
    for outcome in ("accept", "decline", "error", "cancel", "review"):
        assert f'data-outcome="{outcome}"' in page
    record = card_records().get()
    assert record.attempt == params["transaction_uuid"]
    assert record.reference == charge["id"]
    assert (record.amount, record.currency, record.decision) == (1250, "USD", "")


def test_page_follows_the_requested_locale(browser_client, params):
    response = open_payment_page(browser_client, resign({**params, "locale": "en"}))
    assert response.status_code == 200
    assert "Test mode" in response.content.decode()


@pytest.mark.parametrize(
    ("field", "value"),
    [("amount", "0.01"), ("reference_number", "ch_other"), ("currency", "CDF")],
)
def test_tampered_form_is_refused_with_403(browser_client, params, field, value):
    assert_refused(open_payment_page(browser_client, {**params, field: value}), 403, "102")


def test_form_signed_with_another_key_is_refused(browser_client, params):
    forged = resign({**params, "amount": "0.01"}, secret_key="not-the-sandbox-key")
    assert_refused(open_payment_page(browser_client, forged), 403, "102")


def test_form_without_signature_is_refused(browser_client, params):
    unsigned = {k: v for k, v in params.items() if k != "signature"}
    assert_refused(open_payment_page(browser_client, unsigned), 403, "102")


def test_stale_signed_time_is_refused(api, browser_client):
    with time_machine.travel(timezone.now(), tick=False) as traveller:
        params = card_charge_via_api(api)["next_action"]["params"]
        traveller.shift(timedelta(minutes=15, seconds=1))
        assert_refused(open_payment_page(browser_client, params), 403, "102")
        traveller.shift(timedelta(seconds=-2))  # within 15 minutes: still good
        assert open_payment_page(browser_client, params).status_code == 200


@pytest.mark.parametrize("value", ["2024-01-15 10:30:00", "2024-01-15T10:30:00+00:00", "now"])
def test_malformed_signed_time_is_refused(browser_client, params, value):
    response = open_payment_page(browser_client, resign({**params, "signed_date_time": value}))
    assert_refused(response, 403, "102")


@pytest.mark.parametrize("field", ["currency", "amount", "reference_number", "transaction_uuid"])
def test_required_field_that_is_not_signed_is_refused(browser_client, params, field):
    names = [n for n in params["signed_field_names"].split(",") if n != field]
    fields = {**params, "signed_field_names": ",".join(names), "unsigned_field_names": field}
    assert_refused(open_payment_page(browser_client, resign(fields)), 403, "102")


def test_reply_page_that_is_not_signed_is_refused(browser_client, params):
    names = params["signed_field_names"].replace(",override_custom_receipt_page", "")
    fields = {
        **params,
        "signed_field_names": names,
        "unsigned_field_names": "override_custom_receipt_page",
        "override_custom_receipt_page": "https://attacker.example/steal",
    }
    assert_refused(open_payment_page(browser_client, resign(fields)), 403, "102")


def test_field_neither_signed_nor_declared_unsigned_is_refused(browser_client, params):
    assert_refused(open_payment_page(browser_client, {**params, "extra": "x"}), 403, "102")


@pytest.mark.parametrize(
    ("field", "status", "reason_code"),
    [
        ("transaction_type", 400, "101"),  # missing required field
        ("currency", 400, "101"),
        ("access_key", 403, "102"),  # no access key: access denied before anything else
    ],
)
def test_missing_required_field_is_refused(browser_client, params, field, status, reason_code):
    names = [n for n in params["signed_field_names"].split(",") if n != field]
    fields = {k: v for k, v in params.items() if k != field}
    fields["signed_field_names"] = ",".join(names)
    response = open_payment_page(browser_client, resign(fields))
    assert_refused(response, status, reason_code)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("amount", "12.5"),
        ("amount", "12,50"),
        ("amount", "0.00"),
        ("currency", "US"),
        ("currency", "usd"),
        ("transaction_type", "refund"),
        ("transaction_uuid", "u" * 51),
        ("override_custom_receipt_page", "javascript:alert(1)"),
    ],
)
def test_badly_formed_field_is_refused(browser_client, params, field, value):
    response = open_payment_page(browser_client, resign({**params, field: value}))
    assert_refused(response, 400, "102")


@pytest.mark.parametrize(
    ("field", "value"), [("access_key", "someone-elses-key"), ("profile_id", "OTHER")]
)
def test_unknown_credentials_are_refused(browser_client, params, field, value):
    assert_refused(open_payment_page(browser_client, resign({**params, field: value})), 403, "102")


def test_authorization_is_an_accepted_transaction_type(browser_client, params):
    fields = resign({**params, "transaction_type": "authorization"})
    assert open_payment_page(browser_client, fields).status_code == 200


def test_repeated_transaction_uuid_is_refused_with_reason_104(browser_client, params):
    assert open_payment_page(browser_client, params).status_code == 200
    again = open_payment_page(browser_client, params)
    assert again.status_code == 409
    assert '<span class="code">104</span>' in again.content.decode()
    assert card_records().count() == 1


@pytest.mark.parametrize(
    ("outcome", "decision", "reason_code"),
    [
        ("accept", "ACCEPT", "100"),
        ("decline", "DECLINE", "203"),
        ("error", "ERROR", "150"),
        ("review", "REVIEW", "201"),
    ],
)
def test_outcome_is_recorded_and_replied_signed_to_the_receipt_page(
    browser_client, charge, params, outcome, decision, reason_code
):
    action, reply = pay(browser_client, params, outcome)
    record = card_records().get()
    assert (record.decision, record.reason_code) == (decision, reason_code)
    assert record.answered_at is not None
    assert action == params["override_custom_receipt_page"]
    secure_acceptance.verify(reply, settings.SANDBOX_CARD_SECRET_KEY)
    assert set(reply["signed_field_names"].split(",")) == set(reply) - {"signature"}
    assert reply["decision"] == decision and reply["reason_code"] == reason_code
    assert reply["transaction_id"] == record.id
    assert reply["req_reference_number"] == charge["id"]
    assert reply["req_transaction_uuid"] == params["transaction_uuid"]
    assert (reply["req_amount"], reply["req_currency"]) == ("12.50", "USD")
    assert reply["req_transaction_type"] == "sale" and reply["req_locale"] == "fr-fr"
    assert reply["message"]
    assert ("auth_amount" in reply) == (outcome == "accept")
    if outcome == "accept":
        assert reply["auth_amount"] == "12.50"


def test_cancel_replies_to_the_cancel_page(browser_client, params):
    cancel_page = f"{settings.PUBLIC_BASE_URL}/card/receipt?cancelled=1"
    fields = resign({**params, "override_custom_cancel_page": cancel_page})
    action, reply = pay(browser_client, fields, "cancel")
    assert action == cancel_page
    assert reply["decision"] == "CANCEL" and "reason_code" not in reply
    secure_acceptance.verify(reply, settings.SANDBOX_CARD_SECRET_KEY)
    assert card_records().get().decision == "CANCEL"


def test_reply_page_submits_itself_and_has_a_button_without_javascript(browser_client, params):
    page = open_payment_page(browser_client, params).content.decode()
    reply = browser_client.post(decide_url(page), {"outcome": "accept"}).content.decode()
    assert 'document.getElementById("reply").submit()' in reply
    assert '<button type="submit"' in reply


def test_first_decision_is_final(browser_client, params):
    page = open_payment_page(browser_client, params).content.decode()
    url = decide_url(page)
    browser_client.post(url, {"outcome": "decline"})
    _, reply = reply_form(browser_client.post(url, {"outcome": "accept"}).content.decode())
    assert reply["decision"] == "DECLINE"
    assert card_records().get().decision == "DECLINE"


def test_unknown_outcome_and_unknown_transaction_are_refused(browser_client, params):
    url = decide_url(open_payment_page(browser_client, params).content.decode())
    assert browser_client.post(url, {"outcome": "steal"}).status_code == 400
    assert (
        browser_client.post(url.replace("sbx_", "sbx_x"), {"outcome": "accept"}).status_code == 404
    )
    assert card_records().get().decision == ""


def test_payment_page_only_takes_post(browser_client):
    assert browser_client.get("/sandbox/card/pay").status_code == 405


# --- "Return to the card payment page" from the checkout's waiting page --------------------------


def signed_form(client: Client, session_id: str) -> dict[str, str]:
    """The checkout's card step: the signed form our page auto-submits to the card provider. The
    customer's browser posts our page's own form, with its CSRF token."""
    checkout = client.get(f"/pay/{session_id}").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', checkout).group(1)
    page = client.post(f"/pay/{session_id}/card", {"csrfmiddlewaretoken": token})
    assert page.status_code == 200, page.content
    pairs = re.findall(r'<input type="hidden" name="([^"]*)" value="([^"]*)">', page.text)
    return {html_lib.unescape(k): html_lib.unescape(v) for k, v in pairs}


@pytest.mark.parametrize("late_outcome", ["accept", "decline"])
def test_back_to_the_card_page_signs_a_fresh_attempt_and_a_late_old_reply_still_counts(
    merchant, browser_client, late_outcome
):
    session = make_session(
        merchant, amount=1999, currency="USD", success_url="https://shop.example.cd/merci"
    )
    with time_machine.travel(timezone.now(), tick=False) as clock:
        first = signed_form(browser_client, session.id)
        old_page = open_payment_page(browser_client, first)  # the customer sees the page…
        assert old_page.status_code == 200
        clock.shift(timedelta(minutes=20))  # …leaves it, and comes back later to our page

        second = signed_form(browser_client, session.id)  # "Return to the card payment page"
        charge = Charge.objects.get()  # the same charge, a new attempt
        assert second["transaction_uuid"] != first["transaction_uuid"]
        assert secure_acceptance.parse_signed_date_time(
            second["signed_date_time"]
        ) - secure_acceptance.parse_signed_date_time(first["signed_date_time"]) >= timedelta(
            minutes=20
        )
        assert charge.provider_attempt == second["transaction_uuid"]
        assert charge.next_action["params"] == second
        # The old form cannot be used again (its signature time is stale now); the new one can.
        stale = open_payment_page(browser_client, first)
        assert stale.status_code == 403
        assert "signed_date_time is too old" in stale.content.decode()
        assert open_payment_page(browser_client, second).status_code == 200

        # The customer answers the OLD page late: its reply still verifies, the check decides.
        reply = browser_client.post(decide_url(old_page.text), {"outcome": late_outcome})
        action, fields = reply_form(reply.text)
        assert fields["req_transaction_uuid"] == first["transaction_uuid"]
        answered = browser_client.post(urlsplit(action).path, fields)
        assert answered.status_code == 303
    charge.refresh_from_db()
    # A payment taken on the old attempt settles the charge; a decline there does not end the
    # new attempt the customer is on.
    assert charge.status == ("succeeded" if late_outcome == "accept" else "pending")
    assert charge.provider_attempt == second["transaction_uuid"]


def test_an_old_attempt_paid_after_the_new_one_was_canceled_is_given_back(merchant, browser_client):
    """Two tabs: the customer cancels on the newer card page, then pays on the older one, still
    open. The charge stays canceled (the session's customer was sent to cancel_url), and the
    payment the provider took is given back in full, on the transaction that took it."""
    session = make_session(merchant, amount=1999, currency="USD")
    with time_machine.travel(timezone.now(), tick=False) as clock:
        first = signed_form(browser_client, session.id)
        old_page = open_payment_page(browser_client, first)
        clock.shift(timedelta(minutes=20))
        second = signed_form(browser_client, session.id)
        new_page = open_payment_page(browser_client, second)

        for page, outcome in ((new_page, "cancel"), (old_page, "accept")):
            reply = browser_client.post(decide_url(page.text), {"outcome": outcome})
            action, fields = reply_form(reply.text)
            assert browser_client.post(urlsplit(action).path, fields).status_code == 303
            if outcome == "cancel":
                assert Charge.objects.get().failure_code == "canceled"
    charge = Charge.objects.get()
    taken = card_records().get(attempt=first["transaction_uuid"], decision="ACCEPT")
    assert (charge.status, charge.failure_code) == ("failed", "canceled")
    assert charge.late_payment_at is not None
    assert charge.provider_reference == taken.id
    [refund] = charge.refunds.all()
    # Reserved, and sent to the provider by a task once committed (on the taken transaction).
    assert (refund.amount, refund.reason, refund.status) == (1999, "late_payment", "pending")


@pytest.mark.parametrize(
    "page",
    [
        "https://evil.example/steal",
        "http://127.0.0.1:8000.evil.example/card/receipt",
        "http://127.0.0.1:8001/card/receipt",
        "https://127.0.0.1:8000/card/receipt",
        "http://user@127.0.0.1:8000/card/receipt",
    ],
)
@pytest.mark.parametrize("name", ["override_custom_receipt_page", "override_custom_cancel_page"])
def test_reply_pages_outside_this_service_are_refused_and_nothing_is_posted(
    browser_client, params, settings, name, page
):
    """The test provider's secret may be public: it must not make our domain a POST redirector."""
    settings.PUBLIC_BASE_URL = "http://127.0.0.1:8000"
    response = open_payment_page(browser_client, resign({**params, name: page}))
    assert_refused(response, 403, "102")
    assert "action=" not in response.content.decode()
    assert not card_records().exists()
