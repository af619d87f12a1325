"""Orange Money payouts (B2B RDC cashin) against a local Orange API, over real HTTP."""

import pytest
from django.utils import timezone

from core import ids
from core.errors import ProviderUnavailable
from payments.providers.base import PayoutNotSent, PayoutQuery, PayoutRequest
from payments.providers.orange import UNCONFIRMED_CHECK_AFTER, OrangeMoney
from tests.fakes.base import Dribble, Response, Silence

pytestmark = pytest.mark.django_db

API = "/orange-money-b2b/v1/cd/transactions"
PHONE = "+243851234567"
PEER = "851234567"
CASHIN = ("POST", f"{API}/cashin")


@pytest.fixture
def orange_payouts(orange, settings):
    settings.ORANGE_PAYOUTS_ENABLED = True
    return orange


def payout(amount: int = 50000, phone: str = PHONE) -> PayoutRequest:
    return PayoutRequest(
        reference=ids.payout_id(),
        amount=amount,
        currency="CDF",
        phone=phone,
        network="ORANGE_MONEY",
    )


def status_of(request: PayoutRequest):
    return OrangeMoney().payout_status(
        PayoutQuery(
            reference=request.reference,
            amount=request.amount,
            currency=request.currency,
            phone=request.phone,
            network=request.network,
            requested_at=timezone.now(),
        )
    )


def cashins(orange) -> int:
    return len(orange.requests_to(*CASHIN))


def test_a_payout_is_one_cashin_settled_by_the_status_query(orange_payouts):
    request = payout()
    outcome = OrangeMoney().send_payout(request)

    record = orange_payouts.transactions[request.reference]
    assert (outcome.status, outcome.provider_reference) == ("pending", record["reference"])
    assert (record["type"], record["peerId"], record["amount"]) == ("cashin", PEER, 500)
    assert status_of(request).status == "pending"  # Orange still processing
    done = status_of(request)
    assert (done.status, done.provider_reference) == ("succeeded", record["reference"])
    assert orange_payouts.paid_out(PEER, "CDF") == 500
    assert orange_payouts.refunded(PEER, "CDF") == 0  # a payout is no refund of a cashout
    assert cashins(orange_payouts) == 1


def test_a_cashin_orange_reports_failed_fails_the_payout(orange_payouts):
    orange_payouts.cashin_outcomes[PEER] = ("FAILED", "E-RECEIVER")
    request = payout()
    OrangeMoney().send_payout(request)
    status_of(request)

    outcome = status_of(request)
    assert (outcome.status, outcome.failure_code) == ("failed", "provider_error")
    assert "E-RECEIVER" in outcome.failure_message and "payout" in outcome.failure_message
    assert orange_payouts.paid_out(PEER, "CDF") == 0


def test_a_refused_cashin_fails_the_payout(orange_payouts):
    orange_payouts.cashin_enabled = False  # the merchant account may not pay customers
    outcome = OrangeMoney().send_payout(payout())

    assert (outcome.status, outcome.failure_code) == ("failed", "provider_error")
    assert "SERVICE_NOT_ALLOWED" in outcome.failure_message
    assert "refused the payout" in outcome.failure_message
    assert cashins(orange_payouts) == 1


SILENT = {
    "5xx": Response(500, {"message": "Internal error"}),
    "504": Response(504, {"message": "Gateway Timeout"}),
    "timeout": Silence(3),
    "dribble": Dribble(0.2),  # each byte in time, the whole answer about 20 s: cut at its deadline
    "401": Response(401, {"code": 42, "message": "Expired credentials"}),
    "bare 403": Response(403, {"message": "Forbidden"}),
    "409": Response(409, {"message": "Duplicate"}),
    "unknown status": Response(202, {"status": "LIMBO"}),
    "not JSON": Response(202, b"<html>accepted</html>"),
}


@pytest.mark.parametrize("answer", SILENT)
def test_answers_that_say_nothing_leave_the_payout_pending_and_sent_once(
    orange_payouts, settings, answer
):
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    orange_payouts.answer_next(*CASHIN, SILENT[answer])
    outcome = OrangeMoney().send_payout(payout())
    # Over before a dribbled answer had gone out whole: cut at its deadline, never read to its end.
    assert not isinstance(SILENT[answer], Dribble) or orange_payouts.cut_every_dribble()

    assert (outcome.status, outcome.failure_code) == ("pending", "")
    assert cashins(orange_payouts) == 1  # never a second cashin


@pytest.mark.parametrize("answer", ["no answer in time", "gateway error"])
def test_a_cashin_orange_took_without_a_clear_answer_is_settled_by_the_status_query(
    orange_payouts, settings, answer
):
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    if answer == "no answer in time":
        orange_payouts.cashin_hold = True
    else:
        orange_payouts.cashin_gateway_error = 504
    request = payout()
    assert OrangeMoney().send_payout(request).status == "pending"

    orange_payouts.released.set()
    status_of(request)
    assert status_of(request).status == "succeeded"
    assert cashins(orange_payouts) == 1


def test_a_payout_unknown_to_the_status_path_is_pending_never_failed(orange_payouts):
    outcome = status_of(payout())
    assert (outcome.status, outcome.failure_code) == ("pending", "")
    assert outcome.check_after == UNCONFIRMED_CHECK_AFTER


@pytest.mark.parametrize(
    "answer",
    [Response(500, {"message": "down"}), Silence(3), Dribble(0.2)],
    ids=["500", "timeout", "dribble"],
)
def test_a_status_query_without_an_answer_is_pending(orange_payouts, settings, answer):
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    request = payout()
    OrangeMoney().send_payout(request)
    orange_payouts.answer_next("GET", f"{API}/{request.reference}", answer, times=4)

    assert status_of(request).status == "pending"
    # Each try cut at its deadline, its retries included, none read to its end.
    assert not isinstance(answer, Dribble) or orange_payouts.cut_every_dribble()


@pytest.mark.parametrize(
    "setting,value", [("ORANGE_PAYOUTS_ENABLED", False), ("ORANGE_POS_ID", "")]
)
def test_payouts_without_their_settings_are_unavailable(orange_payouts, settings, setting, value):
    setattr(settings, setting, value)
    adapter = OrangeMoney()

    assert adapter.payouts_configured() is False
    with pytest.raises(ProviderUnavailable):
        adapter.send_payout(payout())
    assert orange_payouts.log == []


def test_no_token_means_no_cashin(orange_payouts, settings):
    settings.ORANGE_CLIENT_SECRET = "not-the-secret"
    with pytest.raises(PayoutNotSent):
        OrangeMoney().send_payout(payout())
    assert cashins(orange_payouts) == 0
    assert set(orange_payouts.violations) == {
        "token: Basic auth with client id and secret expected"
    }
    orange_payouts.violations.clear()


def test_whole_units_only_without_calling_orange(orange_payouts):
    outcome = OrangeMoney().send_payout(payout(amount=50050))
    assert (outcome.status, outcome.failure_code) == ("failed", "amount_invalid")
    assert orange_payouts.log == []


def test_the_fake_refuses_a_resent_payout(orange_payouts):
    """The fake's strictness: a cashin sent twice would pay twice; it is refused and recorded."""
    request = payout()
    assert OrangeMoney().send_payout(request).status == "pending"
    assert OrangeMoney().send_payout(request).status == "pending"  # 409: the query decides
    assert orange_payouts.violations == ["cashin: duplicate transactionId"]
    assert cashins(orange_payouts) == 2 and len(orange_payouts.transactions) == 1
    orange_payouts.violations.clear()
