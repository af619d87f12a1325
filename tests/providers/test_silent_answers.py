"""Answers that say nothing about the money — a 5xx, no answer in time, a refused token (401),
an unknown code or status word, an answer dribbled byte by byte, an answer of megabytes without
end — from every live adapter, to the payment call, the status query
and the refund call: the charge or refund stays pending, and the operator receives the payment
or the refund exactly once (no second prompt, no second refund)."""

import re
import time

import pytest

from payments.models import Refund
from payments.providers.base import ProviderOutcome
from payments.services import charges, refunds
from tests.factories import charge_via_api
from tests.fakes.base import Dribble, Flood, Response, Silence
from tests.fakes.mpesa import PREFIX as MPESA

pytestmark = pytest.mark.django_db

ORANGE = "/orange-money-b2b/v1/cd/transactions"
REFERENCE = "OPREF12345"  # the operator's id of the (settled) charge being refunded

# adapter → (charge body, payment call, status query, refund call, unknown answers to each)
ADAPTERS = {
    "airtel": (
        {"amount": 250000, "currency": "CDF", "phone": "+243971234567", "network": "AIRTEL_MONEY"},
        ("POST", "/merchant/v1/payments/"),
        ("GET", r"/standard/v1/payments/[^/]+"),
        ("POST", "/standard/v1/payments/refund"),
        {
            "payment": Response(200, {"status": {"response_code": "DP0080000XYZ"}}),
            "query": Response(200, {"data": {"transaction": {"status": "TXYZ"}}, "status": {}}),
            "refund": Response(200, {"data": {"transaction": {"status": "XYZ"}}, "status": {}}),
        },
    ),
    "mpesa": (
        {"amount": 1000, "currency": "USD", "phone": "+243812345678", "network": "VODACOM_MPESA"},
        ("POST", f"{MPESA}/c2bPayment/singleStage/"),
        ("GET", f"{MPESA}/queryTransactionStatus/"),
        ("PUT", f"{MPESA}/reversal/"),
        {
            "payment": Response(200, {"output_ResponseCode": "INS-4242"}),
            "query": Response(
                200, {"output_ResponseCode": "INS-0", "output_ResponseTransactionStatus": "Limbo"}
            ),
            "refund": Response(400, {"output_ResponseCode": "INS-4242"}),
        },
    ),
    "orange": (
        {"amount": 50000, "currency": "CDF", "phone": "+243851234567", "network": "ORANGE_MONEY"},
        ("POST", f"{ORANGE}/cashout"),
        ("GET", f"{ORANGE}/(?!cashout|cashin)[^/]+"),
        ("POST", f"{ORANGE}/cashin"),
        {
            "payment": Response(202, {"status": "LIMBO"}),
            "query": Response(200, {"transactionStatus": "LIMBO"}),
            "refund": Response(200, {"status": "LIMBO"}),
        },
    ),
    "cybersource": (
        {"amount": 1999, "currency": "USD", "payment_method": "card"},
        None,  # the customer pays on the hosted page: we make no payment call
        ("POST", "/tss/v2/searches"),
        ("POST", r"/pts/v2/payments/[^/]+/refunds"),
        {
            "query": Response(201, {"_embedded": {"transactionSummaries": "?"}}),
            "refund": Response(201, {"status": "LIMBO"}),
        },
    ),
}
ANSWERS = ["5xx", "timeout", "401", "unknown", "dribble", "flood"]
DRIBBLE = 0.2  # seconds per byte: the whole answer would take about 20 s


def scripted(kind: str, call: str, adapter: str):
    if kind == "5xx":
        return Response(500, {"error": "internal error"})
    if kind == "timeout":
        return Silence(3)
    if kind == "dribble":  # each byte within the timeout: the call is cut at its deadline
        return Dribble(DRIBBLE)
    if kind == "flood":  # 64 MB: read no further than MAX_ANSWER, then dropped
        return Flood()
    if kind == "401":
        return Response(401, {"error": "Unauthorized"})
    return ADAPTERS[adapter][4][call]


@pytest.fixture
def live(request, settings):
    """The fake of `adapter`, with timeouts short enough for the Silence answers."""
    fake = request.getfixturevalue(request.param)
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    settings.MPESA_TIMEOUT = 0.5
    if request.param == "mpesa":
        fake.activation_delay = 0  # any second call would be a repetition, not a wait
        settings.MPESA_SESSION_ACTIVATION = 0
    return request.param, fake


def read_no_further(fake) -> bool:
    """The flooding fake saw its client stop reading (and go) long before its 64 MB were sent."""
    deadline = time.monotonic() + 60
    while not getattr(fake, "flood_cut", False) and time.monotonic() < deadline:
        time.sleep(0.05)
    return getattr(fake, "flood_cut", False)


def calls(fake, route) -> int:
    method, pattern = route
    return sum(1 for r in fake.log if r.method == method and re.fullmatch(pattern, r.path))


@pytest.mark.parametrize("kind", ANSWERS)
@pytest.mark.parametrize("live", ["airtel", "mpesa", "orange"], indirect=True)
def test_the_payment_call(live, kind, live_api):
    adapter, fake = live
    route = ADAPTERS[adapter][1]
    fake.answer_next(*route, scripted(kind, "payment", adapter))
    charge = charge_via_api(live_api, **ADAPTERS[adapter][0])
    charges.charge_request_payment(charge_id=charge.id)
    assert kind != "dribble" or fake.cut_every_dribble()  # each try cut at its deadline

    charge.refresh_from_db()
    assert (charge.status, charge.failure_code) == ("pending", "")
    assert calls(fake, route) == 1  # one prompt, never a second
    assert kind != "flood" or read_no_further(fake)


@pytest.mark.parametrize("kind", ANSWERS)
@pytest.mark.parametrize("live", list(ADAPTERS), indirect=True)
def test_the_status_query(live, kind, live_api):
    adapter, fake = live
    route = ADAPTERS[adapter][2]
    fake.answer_next(*route, scripted(kind, "query", adapter), times=4)  # retries included
    charge = charge_via_api(live_api, **ADAPTERS[adapter][0])
    charges.charge_refresh(charge_id=charge.id)
    assert kind != "dribble" or fake.cut_every_dribble()  # each try cut at its deadline

    charge.refresh_from_db()
    assert (charge.status, charge.failure_code) == ("pending", "")
    assert calls(fake, route) >= 1
    assert kind != "flood" or read_no_further(fake)
    if ADAPTERS[adapter][1]:
        assert calls(fake, ADAPTERS[adapter][1]) == 0  # a query never sends a prompt


@pytest.mark.parametrize("kind", ANSWERS)
@pytest.mark.parametrize("live", list(ADAPTERS), indirect=True)
def test_the_refund_call(live, kind, live_api):
    adapter, fake = live
    route = ADAPTERS[adapter][3]
    charge = charge_via_api(live_api, **ADAPTERS[adapter][0])
    charges.charge_apply_outcome(
        charge_id=charge.id,
        outcome=ProviderOutcome(status="succeeded", provider_reference=REFERENCE),
    )
    response = live_api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json")
    assert response.status_code == 201, response.content
    fake.answer_next(*route, scripted(kind, "refund", adapter))
    refund = refunds.refund_send(refund_id=response.json()["id"])
    assert kind != "dribble" or fake.cut_every_dribble()  # each try cut at its deadline

    assert (refund.status, refund.failure_code) == ("pending", "")
    assert calls(fake, route) == 1  # one refund, never a second
    assert kind != "flood" or read_no_further(fake)
    assert Refund.objects.get(pk=refund.id).charge.amount_refunded == charge.amount
