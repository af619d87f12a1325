"""Vodacom M-Pesa B2C (payouts) against a local M-Pesa OpenAPI, over real HTTP: the same session
mechanism as C2B (RSA-encrypted API key, then session id), the B2C shortcode, INS codes."""

import re

import pytest
from django.utils import timezone

from core import ids
from core.errors import ProviderUnavailable
from payments.providers.base import PayoutNotSent, PayoutQuery, PayoutRequest
from payments.providers.mpesa import VodacomMpesa
from tests.fakes.base import Dribble, Response, Silence
from tests.fakes.mpesa import PREFIX

pytestmark = pytest.mark.django_db

PHONE = "+243812345678"
MSISDN = "243812345678"
B2C = ("POST", f"{PREFIX}/b2cPayment/")
QUERY = ("GET", f"{PREFIX}/queryTransactionStatus/")


@pytest.fixture
def mpesa_payouts(mpesa, settings):
    settings.MPESA_B2C_SERVICE_PROVIDER_CODE = mpesa.b2c_shortcode
    # Sessions active at once: any second call would be a repetition, not a wait (the wait for
    # a new session has its own test).
    mpesa.activation_delay = 0
    settings.MPESA_SESSION_ACTIVATION = 0
    return mpesa


def payout(amount: int = 1000, phone: str = PHONE, currency: str = "USD") -> PayoutRequest:
    return PayoutRequest(
        reference=ids.payout_id(),
        amount=amount,
        currency=currency,
        phone=phone,
        network="VODACOM_MPESA",
        description="Winnings",
    )


def status_of(request: PayoutRequest):
    return VodacomMpesa().payout_status(
        PayoutQuery(
            reference=request.reference,
            amount=request.amount,
            currency=request.currency,
            phone=request.phone,
            network=request.network,
            requested_at=timezone.now(),
        )
    )


def calls(fake, route) -> int:
    method, pattern = route
    return sum(1 for r in fake.log if r.method == method and re.fullmatch(pattern, r.path))


def test_a_payout_is_one_b2c_from_the_b2c_shortcode(mpesa_payouts):
    request = payout()
    outcome = VodacomMpesa().send_payout(request)

    record = mpesa_payouts.transactions[request.reference]
    assert (outcome.status, outcome.provider_reference) == ("succeeded", record["transaction_id"])
    assert (record["msisdn"], record["amount"], record["currency"]) == (MSISDN, 10, "USD")
    assert record["shortcode"] == mpesa_payouts.b2c_shortcode
    body = mpesa_payouts.requests_to(*B2C)[0].json()
    assert body["input_ThirdPartyConversationID"] == request.reference
    assert body["input_PaymentItemsDesc"] == "Winnings"
    assert mpesa_payouts.paid_out(MSISDN) == 10

    confirmed = status_of(request)  # queried with the B2C shortcode (the fake insists)
    assert (confirmed.status, confirmed.provider_reference) == (
        "succeeded",
        record["transaction_id"],
    )
    assert calls(mpesa_payouts, B2C) == 1


@pytest.mark.parametrize(
    "code,failure_code",
    [
        ("INS-2051", "recipient_invalid"),
        ("INS-2002", "recipient_invalid"),
        ("INS-4", "recipient_invalid"),  # HTTP 401, the payout's own answer
        ("INS-15", "amount_invalid"),
        ("INS-2006", "provider_error"),  # our B2C account cannot fund it
        ("INS-6", "provider_error"),  # HTTP 401 too
        ("INS-2001", "provider_error"),
        ("INS-20", "provider_error"),
    ],
)
def test_refusals_fail_the_payout_with_our_codes(mpesa_payouts, code, failure_code):
    mpesa_payouts.b2c_answers[MSISDN] = code
    request = payout()
    outcome = VodacomMpesa().send_payout(request)

    assert (outcome.status, outcome.failure_code) == ("failed", failure_code)
    assert calls(mpesa_payouts, B2C) == 1  # a 401 with a payout's code is never repeated
    later = status_of(request)
    assert (later.status, later.failure_code) == ("failed", "provider_error")
    assert mpesa_payouts.paid_out(MSISDN) == 0


SILENT = {
    "5xx": Response(500, {"output_ResponseCode": "INS-1"}),
    "timeout": Silence(3),
    "dribble": Dribble(0.2),  # each byte in time, the whole answer about 20 s: cut at its deadline
    "bare 401": Response(401, {"error": "Unauthorized"}),
    "INS-9 request timeout": Response(408, {"output_ResponseCode": "INS-9"}),
    "INS-10 duplicate": Response(409, {"output_ResponseCode": "INS-10"}),
    "INS-16 overload": Response(503, {"output_ResponseCode": "INS-16"}),
    "INS-23 unknown status": Response(400, {"output_ResponseCode": "INS-23"}),
    "unknown code": Response(200, {"output_ResponseCode": "INS-4242"}),
    "not JSON": Response(200, b"<html>gateway</html>"),
}


@pytest.mark.parametrize("answer", SILENT)
def test_answers_that_say_nothing_leave_the_payout_pending_and_sent_once(
    mpesa_payouts, settings, answer
):
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    mpesa_payouts.answer_next(*B2C, SILENT[answer])
    outcome = VodacomMpesa().send_payout(payout())
    # Over before a dribbled answer had gone out whole: cut at its deadline, never read to its end.
    assert not isinstance(SILENT[answer], Dribble) or mpesa_payouts.cut_every_dribble()

    assert (outcome.status, outcome.failure_code) == ("pending", "")
    assert calls(mpesa_payouts, B2C) == 1  # never a second B2C


def test_a_persistent_session_refusal_leaves_the_payout_pending(mpesa_payouts):
    refusal = Response(401, {"output_ResponseCode": "INS-2", "output_ResponseDesc": "Invalid"})
    mpesa_payouts.answer_next(*B2C, refusal, times=3)
    outcome = VodacomMpesa().send_payout(payout())

    assert (outcome.status, outcome.failure_code) == ("pending", "")
    assert calls(mpesa_payouts, B2C) == 2  # INS-2 proves nothing was paid: one renewal
    assert mpesa_payouts.transactions == {}


def test_the_first_payout_waits_for_its_new_session(mpesa_payouts, settings):
    mpesa_payouts.activation_delay = 0.3
    settings.MPESA_SESSION_ACTIVATION = 1
    request = payout()
    outcome = VodacomMpesa().send_payout(request)

    assert outcome.status == "succeeded"
    assert mpesa_payouts.inactive_refusals == [f"{PREFIX}/b2cPayment/"]  # refused, not paid
    assert mpesa_payouts.session_requests == 1
    assert mpesa_payouts.paid_out(MSISDN) == 10


def test_an_answer_lost_after_m_pesa_paid_is_settled_by_the_query(mpesa_payouts, settings):
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    mpesa_payouts.b2c_answers[MSISDN] = "hold"  # paid, answered after our timeout
    request = payout()
    outcome = VodacomMpesa().send_payout(request)
    assert outcome.status == "pending" and outcome.raw["payout"] == "no answer in time"

    mpesa_payouts.released.set()
    assert status_of(request).status == "succeeded"
    assert calls(mpesa_payouts, B2C) == 1


@pytest.mark.parametrize(
    "answer",
    [
        Response(500, {"output_ResponseCode": "INS-1"}),
        Response(200, {"output_ResponseCode": "INS-0", "output_ResponseTransactionStatus": "?"}),
        Silence(3),
        Dribble(0.2),
    ],
    ids=["500", "unknown status word", "timeout", "dribble"],
)
def test_a_query_without_an_answer_is_pending(mpesa_payouts, settings, answer):
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    request = payout()
    VodacomMpesa().send_payout(request)
    mpesa_payouts.answer_next(*QUERY, answer, times=4)  # its retries included

    assert status_of(request).status == "pending"
    # Each try cut at its deadline, its retries included, none read to its end.
    assert not isinstance(answer, Dribble) or mpesa_payouts.cut_every_dribble()


def test_a_payout_m_pesa_does_not_know_is_pending_never_failed(mpesa_payouts):
    outcome = status_of(payout())
    assert (outcome.status, outcome.failure_code) == ("pending", "")
    assert calls(mpesa_payouts, B2C) == 0


@pytest.mark.parametrize("missing", ["MPESA_B2C_SERVICE_PROVIDER_CODE", "MPESA_API_KEY"])
def test_payouts_without_their_credentials_are_unavailable(mpesa_payouts, settings, missing):
    setattr(settings, missing, "")
    adapter = VodacomMpesa()

    assert adapter.payouts_configured() is False
    with pytest.raises(ProviderUnavailable):
        adapter.send_payout(payout())
    assert mpesa_payouts.log == []


def test_no_session_means_no_b2c(mpesa_payouts, settings):
    settings.MPESA_API_KEY = "not-the-api-key"
    with pytest.raises(PayoutNotSent):
        VodacomMpesa().send_payout(payout())
    assert calls(mpesa_payouts, B2C) == 0
    assert set(mpesa_payouts.violations) == {"getSession: Bearer is not the encrypted API key"}
    mpesa_payouts.violations.clear()


def test_whole_units_only_without_calling_m_pesa(mpesa_payouts):
    outcome = VodacomMpesa().send_payout(payout(amount=1050))
    assert (outcome.status, outcome.failure_code) == ("failed", "amount_invalid")
    assert mpesa_payouts.log == []


def test_the_fake_refuses_a_resent_payout_and_the_c2b_shortcode(mpesa_payouts, settings):
    """The fake's strictness: what a faulty adapter would send is refused and recorded."""
    request = payout()
    assert VodacomMpesa().send_payout(request).status == "succeeded"
    assert VodacomMpesa().send_payout(request).status == "pending"  # INS-10: never sent twice
    assert mpesa_payouts.violations == [f"b2c {request.reference} sent twice"]
    assert mpesa_payouts.paid_out(MSISDN) == 10
    mpesa_payouts.violations.clear()

    settings.MPESA_B2C_SERVICE_PROVIDER_CODE = mpesa_payouts.shortcode  # the C2B one
    assert VodacomMpesa().send_payout(payout()).status == "pending"  # a 400 without INS code
    assert mpesa_payouts.violations == ["b2c: input_ServiceProviderCode must be the B2C shortcode"]
    mpesa_payouts.violations.clear()
