"""Vodacom M-Pesa live adapter against a local M-Pesa OpenAPI that decrypts every Bearer."""

import base64

import pytest
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from payments.models import Charge
from payments.providers import http
from payments.providers import mpesa as mpesa_module
from payments.providers.mpesa import VodacomMpesa
from payments.services import charges, refunds
from tests.factories import answered_mpesa_charge, charge_via_api, refund_request
from tests.fakes.base import Response
from tests.fakes.mpesa import PREFIX
from tests.helpers import wait_for

pytestmark = pytest.mark.django_db

C2B, QUERY, REVERSAL = "c2bPayment/singleStage", "queryTransactionStatus", "reversal"
CHARGE = {"amount": 1000, "currency": "USD", "phone": "+243812345678", "network": "VODACOM_MPESA"}


def test_pin_entered_during_the_call_settles_at_once_then_reversals(mpesa, live_api):
    charge = charge_via_api(live_api, **CHARGE, description="Commande 42")
    charges.charge_request_payment(charge_id=charge.id)
    charge.refresh_from_db()
    record = mpesa.transactions[charge.id]
    assert record["msisdn"] == "243812345678" and record["amount"] == 10
    assert charge.status == "succeeded" and charge.provider == "vodacom_mpesa"
    assert charge.provider_reference == record["transaction_id"]

    adapter = VodacomMpesa()
    first = adapter.refund(
        refund_request(charge, amount=400, refund_id="re_aaaaaaaaaaaaaaaaaaaaaaaa")
    )
    assert first.status == "succeeded"
    too_much = adapter.refund(
        refund_request(charge, amount=700, refund_id="re_bbbbbbbbbbbbbbbbbbbbbbbb")
    )
    assert (too_much.status, too_much.failure_code) == ("failed", "amount_invalid")
    rest = adapter.refund(
        refund_request(charge, amount=600, refund_id="re_cccccccccccccccccccccccc")
    )
    assert rest.status == "succeeded"
    assert [r["amount"] for r in mpesa.reversals] == [4, 6]
    assert mpesa.session_requests == 1  # one session for the payment and every reversal


@pytest.mark.parametrize(
    "code, status, failure_code",
    [
        ("INS-2006", "declined", "insufficient_funds"),
        ("INS-5", "declined", "customer_rejected"),
        ("INS-4", "declined", "account_inactive"),
        ("INS-6", "failed", "provider_error"),
        ("INS-2051", "failed", "phone_invalid"),
    ],
)
def test_refusals_map_to_our_codes(mpesa, live_api, code, status, failure_code):
    mpesa.pin_entry["243812345678"] = code
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    body = live_api.get(f"/v1/charges/{charge.id}").json()
    assert (body["status"], body["failure_code"]) == (status, failure_code)


def test_no_answer_in_time_is_pending_then_the_query_settles_it(mpesa, live_api, settings):
    """The query's answer names the M-Pesa transaction id `output_OriginalTransactionID`, as the
    portal's Query Transaction Status API documents it (M-Pesa OpenAPI portal,
    openapi.m-pesa.com, "Query Transaction Status", Synchronous Responses: output_ResponseCode
    INS-0, output_ResponseTransactionStatus Completed, output_ConversationID,
    output_ThirdPartyConversationID, output_OriginalTransactionID 4C123GE3, output_Reversed
    False; as public integrations read it, e.g. the M-Pesa Go SDKs' QueryTxStatusResponse): the
    charge settled by the query keeps it as its operator reference, which its reversal needs."""
    settings.MPESA_TIMEOUT = 0.5
    mpesa.pin_entry["243812345678"] = "hold"  # the customer takes longer than our timeout
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    charge.refresh_from_db()
    assert charge.status == "pending" and charge.provider_raw[-1]["c2b"] == "timeout"

    charges.charge_refresh(charge_id=charge.id)  # M-Pesa still waits for the PIN
    charge.refresh_from_db()
    assert charge.status == "pending"

    mpesa.released.set()  # the PIN is entered
    wait_for(lambda: mpesa.transactions[charge.id]["status"] == "Completed", timeout=5)
    charges.charge_refresh(charge_id=charge.id)
    charge.refresh_from_db()
    assert charge.status == "succeeded"
    assert charge.provider_reference == mpesa.transactions[charge.id]["transaction_id"]
    # The C2B refused while the session was new was made again; the one that timed out was not.
    assert len(mpesa.sessions_used(C2B)) == 2


def test_the_first_payment_waits_for_its_new_session_instead_of_opening_another(mpesa, live_api):
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)  # the first call of a fresh process

    charge.refresh_from_db()
    assert charge.status == "succeeded"
    assert mpesa.session_requests == 1
    # Refused once while the session was not active yet, then made again with the same session.
    assert mpesa.inactive_refusals == [f"{PREFIX}/{C2B}/"]
    first, again = mpesa.sessions_used(C2B)
    assert first == again and first in mpesa.sessions
    assert list(mpesa.transactions) == [charge.id]  # one C2B processed, no duplicate
    assert charge.provider_reference == mpesa.transactions[charge.id]["transaction_id"]


def test_an_expired_session_is_renewed_and_the_new_one_waited_for(mpesa, live_api):
    first = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=first.id)
    [old] = set(mpesa.sessions_used(C2B))
    mpesa.drop_sessions()  # M-Pesa expires our session (older than its activation delay) early

    second = charge_via_api(live_api, **{**CHARGE, "phone": "+243821234567"})
    charges.charge_request_payment(charge_id=second.id)
    assert Charge.objects.get(pk=second.id).status == "succeeded"
    assert mpesa.session_requests == 2
    refused, new, again = mpesa.sessions_used(C2B)[2:]
    assert refused == old and new == again != old
    assert mpesa.inactive_refusals == [f"{PREFIX}/{C2B}/"] * 2  # each new session once
    assert list(mpesa.transactions) == [first.id, second.id]


def test_a_session_that_never_becomes_active_is_given_up_on(mpesa, live_api, settings):
    mpesa.activation_delay = 60  # far longer than we are willing to wait
    settings.MPESA_SESSION_ACTIVATION = 0.3
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)

    charge.refresh_from_db()
    # An authentication refusal says nothing about the payment: pending, never failed.
    assert charge.status == "pending" and charge.failure_code == ""
    # Waited once, renewed once, then stopped: nothing reached the payment engine.
    first, again, new = mpesa.sessions_used(C2B)
    assert first == again != new
    assert mpesa.session_requests == 2
    assert mpesa.transactions == {} and mpesa.conversation_ids == set()


def test_the_status_query_after_a_restart_waits_for_the_new_session(mpesa, live_api, settings):
    settings.MPESA_TIMEOUT = 0.5
    mpesa.pin_entry["243812345678"] = "hold"
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    charge.refresh_from_db()
    assert charge.status == "pending"
    mpesa.released.set()
    wait_for(lambda: mpesa.transactions[charge.id]["status"] == "Completed", timeout=5)

    http.tokens.clear()  # the worker restarts: its first call opens a new session
    charges.charge_refresh(charge_id=charge.id)
    charge.refresh_from_db()
    assert charge.status == "succeeded"
    assert mpesa.session_requests == 2
    assert mpesa.inactive_refusals == [f"{PREFIX}/{C2B}/", f"{PREFIX}/{QUERY}/"]
    refused, again = mpesa.sessions_used(QUERY)
    assert refused == again != mpesa.sessions_used(C2B)[0]


def test_a_reversal_after_a_restart_waits_for_the_new_session(mpesa, live_api):
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    http.tokens.clear()  # the worker restarts

    refund = live_api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 400}, format="json")
    assert refund.status_code == 201, refund.content
    assert refunds.refund_send(refund_id=refund.json()["id"]).status == "succeeded"
    assert mpesa.session_requests == 2
    assert mpesa.inactive_refusals == [f"{PREFIX}/{C2B}/", f"{PREFIX}/{REVERSAL}/"]
    refused, again = mpesa.sessions_used(REVERSAL)
    assert refused == again
    assert [r["amount"] for r in mpesa.reversals] == [4]  # reversed once, not twice


def test_a_wrong_public_key_is_refused_and_the_charge_stays_pending(mpesa, live_api, settings):
    other = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    settings.MPESA_PUBLIC_KEY = base64.b64encode(
        other.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    ).decode()
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    charge.refresh_from_db()
    assert charge.status == "pending" and "mpesa session" in charge.provider_raw[-1]["error"]
    assert mpesa.transactions == {}
    assert set(mpesa.violations) == {"getSession: Bearer is not the encrypted API key"}
    mpesa.violations.clear()


def test_query_status_words():
    mapped = mpesa_module.QUERY_STATUSES
    assert mapped["completed"][0] == "succeeded"
    assert mapped["expired"][:2] == ("failed", "timeout")
    assert mpesa_module.outcome_for_code("INS-10", {}).status == "pending"
    assert mpesa_module.outcome_for_code("INS-1", {}).status == "pending"
    assert mpesa_module.outcome_for_code("INS-999999", {}).status == "pending"
    assert mpesa_module.outcome_for_code("INS-15", {}).failure_code == "amount_invalid"
    assert mpesa_module.transaction_reference("ch_" + "a" * 24) == "a" * 20


def test_refunds_through_the_api_become_reversals(mpesa, live_api):
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    assert live_api.get(f"/v1/charges/{charge.id}").json()["status"] == "succeeded"

    first = live_api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 400}, format="json")
    assert first.status_code == 201 and first.json()["status"] == "pending"
    assert refunds.refund_send(refund_id=first.json()["id"]).status == "succeeded"
    too_much = live_api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 700}, format="json")
    assert too_much.json()["error"]["code"] == "amount_exceeds_refundable"
    rest = live_api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json")
    assert rest.json()["amount"] == 600
    assert refunds.refund_send(refund_id=rest.json()["id"]).status == "succeeded"
    assert [r["amount"] for r in mpesa.reversals] == [4, 6]
    assert live_api.get(f"/v1/charges/{charge.id}").json()["amount_refunded"] == 1000


# HTTP 401 also carries INS-4, INS-5 and INS-6, the payment's own answer (the portal's published
# response-code table, see payments/providers/mpesa.py): never a reason to renew and post again.


@pytest.fixture
def active_session(mpesa, settings):
    """Sessions active at once: any second call would be our own repetition, not a wait."""
    mpesa.activation_delay = 0
    settings.MPESA_SESSION_ACTIVATION = 0


def test_a_401_ins5_is_the_customers_refusal_and_the_c2b_is_sent_once(
    mpesa, live_api, active_session
):
    charge = answered_mpesa_charge(mpesa, live_api, "INS-5", **CHARGE)
    assert (charge.status, charge.failure_code) == ("declined", "customer_rejected")
    assert len(mpesa.requests_to("POST", f"{PREFIX}/{C2B}/")) == 1  # one PIN prompt
    assert mpesa.session_requests == 1  # the session was not renewed for it


def test_a_401_ins6_reversal_is_sent_once_and_fails(mpesa, live_api, active_session):
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    mpesa.reversal_answer = "INS-6"

    response = live_api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 400}, format="json")
    refund = refunds.refund_send(refund_id=response.json()["id"])
    assert (refund.status, refund.failure_code) == ("failed", "provider_error")
    assert len(mpesa.requests_to("PUT", f"{PREFIX}/{REVERSAL}/")) == 1
    assert mpesa.session_requests == 1 and mpesa.reversals == []


def test_a_bare_401_on_the_c2b_is_not_repeated_and_leaves_the_charge_pending(
    mpesa, live_api, active_session
):
    mpesa.answer_next("POST", f"{PREFIX}/{C2B}/", Response(401, {"error": "Unauthorized"}))
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)

    charge.refresh_from_db()
    assert charge.status == "pending"
    assert len(mpesa.requests_to("POST", f"{PREFIX}/{C2B}/")) == 1
    # The session is dropped all the same: the next call opens a new one.
    charges.charge_refresh(charge_id=charge.id)
    assert mpesa.session_requests == 2


def test_a_request_timeout_ins9_is_pending_and_the_query_settles_it(
    mpesa, live_api, active_session
):
    charge = answered_mpesa_charge(mpesa, live_api, "INS-9", **CHARGE)
    assert charge.status == "pending"  # HTTP 408 "request timeout": the query decides

    charges.charge_refresh(charge_id=charge.id)
    charge.refresh_from_db()
    assert (charge.status, charge.failure_code) == ("failed", "timeout")
    assert charge.provider_reference == mpesa.transactions[charge.id]["transaction_id"]
    assert len(mpesa.requests_to("POST", f"{PREFIX}/{C2B}/")) == 1


@pytest.mark.parametrize(
    "code, status",
    [("INS-2", "pending"), ("INS-5", "declined"), ("INS-6", "failed"), ("INS-4", "declined"),
     ("INS-9", "pending"), ("INS-10", "pending"), ("INS-16", "pending"), ("INS-23", "pending"),
     ("INS-1", "pending"), ("INS-26", "failed"), ("INS-424242", "pending"), ("", "pending")],
)  # fmt: skip
def test_the_ins_table(code, status):
    assert mpesa_module.outcome_for_code(code, {}).status == status


def test_the_query_reads_the_original_transaction_id_as_the_portal_documents_it():
    """Vector: the portal's Query Transaction Status sample answer (M-Pesa OpenAPI portal,
    openapi.m-pesa.com, "Query Transaction Status", Synchronous Responses)."""
    portal_sample = {
        "output_ResponseCode": "INS-0",
        "output_ResponseDesc": "Request processed successfully",
        "output_ResponseTransactionStatus": "Completed",
        "output_ConversationID": "fd1e9143d22544459f7c66e1860ef276",
        "output_ThirdPartyConversationID": "1e9b774d1da34af78412a498cbc28f5e",
        "output_OriginalTransactionID": "4C123GE3",
        "output_Reversed": "False",
    }
    assert mpesa_module.query_transaction_id(portal_sample) == "4C123GE3"
    # An answer in the shape of the C2B call's (output_TransactionID) is still read.
    assert mpesa_module.query_transaction_id({"output_TransactionID": "5C1400CVRO"}) == "5C1400CVRO"
    both = {"output_OriginalTransactionID": "4C123GE3", "output_TransactionID": "OTHER"}
    assert mpesa_module.query_transaction_id(both) == "4C123GE3"
    for empty in (
        {},
        {"output_OriginalTransactionID": ""},
        {"output_OriginalTransactionID": None},
        {"output_OriginalTransactionID": "  "},
        {"output_OriginalTransactionID": True},
    ):
        assert mpesa_module.query_transaction_id(empty) == ""


def test_a_charge_settled_without_an_operator_reference_is_flagged(
    mpesa, live_api, settings, staff, caplog
):
    """M-Pesa answers Completed with an empty transaction id: the charge succeeds (the money was
    taken), but its reversal cannot be sent, so the service logs a warning and the staff's charge
    list filters such charges and the charge's page says it."""
    import logging

    settings.MPESA_TIMEOUT = 0.5
    mpesa.pin_entry["243812345678"] = "hold"
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    mpesa.released.set()
    wait_for(lambda: mpesa.transactions[charge.id]["status"] == "Completed", timeout=5)
    mpesa.query_answers_no_transaction_id = True
    other = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=other.id)  # settled with its id by the C2B answer
    with caplog.at_level(logging.WARNING, logger="payments.providers.mpesa"):
        charges.charge_refresh(charge_id=charge.id)
    charge.refresh_from_db()
    assert (charge.status, charge.provider_reference) == ("succeeded", "")
    assert f"mpesa query for {charge.id}: completed without an M-Pesa transaction id" in caplog.text

    listed = staff.get("/admin/payments/charge/", {"operator_reference": "missing"})
    assert listed.status_code == 200
    page = listed.content.decode()
    assert charge.id in page and other.id not in page
    assert "Réussis sans référence de l’opérateur" in page  # the staff pages speak French
    warning = "Ce paiement a réussi sans la référence de l’opérateur"
    assert warning in staff.get(f"/admin/payments/charge/{charge.id}/change/").content.decode()
    assert warning not in staff.get(f"/admin/payments/charge/{other.id}/change/").content.decode()
