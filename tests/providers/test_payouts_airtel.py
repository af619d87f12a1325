"""Airtel Money disbursements (payouts) against a local Airtel Open API, over real HTTP.

The request follows the public SDKs (the `airtel-pesa` gem's disbursement_payment.rb and
encryption_pin.rb, the 121 platform's v1 disbursement sample and `encryptPinV1`): the wallet PIN
RSA-encrypted with Airtel's public key, PKCS#1 v1.5, base64. The fake decrypts it with the private
key of that public key, so a PIN encrypted any other way (or another PIN) is refused and recorded.
"""

import base64
import logging
import re

import pytest
from django.utils import timezone

from core import ids
from core.errors import ProviderUnavailable
from payments.providers import registry
from payments.providers.airtel import AirtelMoney
from payments.providers.base import PayoutNotSent, PayoutQuery, PayoutRequest
from tests.fakes.base import Dribble, Response, Silence

pytestmark = pytest.mark.django_db

PHONE = "+243971234567"
MSISDN = "971234567"
DISBURSE = ("POST", "/standard/v1/disbursements/")
ENQUIRY = ("GET", r"/standard/v1/disbursements/[^/]+")
PAYOUT_SETTINGS = ["AIRTEL_DISBURSEMENT_PIN", "AIRTEL_DISBURSEMENT_PUBLIC_KEY"]


@pytest.fixture
def airtel_payouts(airtel, settings):
    settings.AIRTEL_DISBURSEMENT_PIN = airtel.disbursement_pin
    settings.AIRTEL_DISBURSEMENT_PUBLIC_KEY = airtel.disbursement_public_key
    yield airtel
    airtel.released.set()


def payout(amount: int = 250000, phone: str = PHONE, reference: str = "") -> PayoutRequest:
    return PayoutRequest(
        reference=reference or ids.payout_id(),
        amount=amount,
        currency="CDF",
        phone=phone,
        network="AIRTEL_MONEY",
        description="Commission",
    )


def status_of(request: PayoutRequest):
    return AirtelMoney().payout_status(
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


def test_a_payout_is_one_disbursement_with_the_encrypted_pin(airtel_payouts):
    request = payout()
    outcome = AirtelMoney().send_payout(request)

    record = airtel_payouts.disbursements[request.reference]
    assert (outcome.status, outcome.failure_code) == ("succeeded", "")
    assert outcome.provider_reference == record["airtel_money_id"]
    assert (record["msisdn"], record["amount"], record["currency"]) == (MSISDN, 2500, "CDF")
    assert record["reference"] == request.reference.replace("_", "")
    sent = airtel_payouts.requests_to(*DISBURSE)
    assert len(sent) == 1
    assert sent[0].headers["x-country"] == "CD" and sent[0].headers["x-currency"] == "CDF"
    pin = sent[0].json()["pin"]
    assert pin != airtel_payouts.disbursement_pin and len(base64.b64decode(pin)) == 128
    assert airtel_payouts.paid_out(MSISDN) == 2500

    confirmed = status_of(request)
    assert (confirmed.status, confirmed.provider_reference) == (
        "succeeded",
        record["airtel_money_id"],
    )
    assert calls(airtel_payouts, DISBURSE) == 1


@pytest.mark.parametrize(
    "code,failure_code",
    [
        ("DP00900001012", "recipient_invalid"),
        ("DP00900001004", "amount_invalid"),
        ("DP00900001003", "limit_exceeded"),
        ("DP00900001007", "provider_error"),
        ("DP00900001005", "provider_error"),
        ("DP00900001013", "provider_error"),
    ],
)
def test_refusals_fail_the_payout_with_our_codes(airtel_payouts, code, failure_code):
    airtel_payouts.disbursement_answers[MSISDN] = code
    request = payout()
    outcome = AirtelMoney().send_payout(request)

    assert (outcome.status, outcome.failure_code) == ("failed", failure_code)
    assert outcome.failure_message
    later = status_of(request)  # the enquiry says the same: TF with the code
    assert (later.status, later.failure_code) == ("failed", failure_code)
    assert airtel_payouts.paid_out(MSISDN) == 0


@pytest.mark.parametrize(
    "final,status,failure_code",
    [
        (("TS", "DP00900001001"), "succeeded", ""),
        (("TF", "DP00900001012"), "failed", "recipient_invalid"),
        (("TF", "DP0090000XYZ"), "failed", "provider_error"),  # failed, whatever the code
    ],
)
def test_a_disbursement_in_progress_is_settled_by_the_enquiry(
    airtel_payouts, final, status, failure_code
):
    airtel_payouts.disbursement_answers[MSISDN] = "DP00900001006"
    airtel_payouts.disbursement_final[MSISDN] = final
    request = payout()
    assert AirtelMoney().send_payout(request).status == "pending"

    assert status_of(request).status == "pending"  # first enquiry: TIP
    outcome = status_of(request)
    assert (outcome.status, outcome.failure_code) == (status, failure_code)
    assert calls(airtel_payouts, DISBURSE) == 1


SILENT = {
    "5xx": Response(500, {"error": "internal error"}),
    "502": Response(502, {"error": "bad gateway"}),
    "timeout": Silence(3),
    "dribble": Dribble(0.2),  # each byte in time, the whole answer about 20 s: cut at its deadline
    "401": Response(401, {"error": "invalid_token"}),
    "403": Response(403, {"error": "invalid_token", "error_description": "expired"}),
    "ambiguous": Response(200, {"status": {"response_code": "DP00900001000", "success": True}}),
    "timed out at Airtel": Response(
        200, {"status": {"response_code": "DP00900001014", "success": False}}
    ),
    "unknown code": Response(200, {"status": {"response_code": "DP0090000XYZ", "success": False}}),
    "not JSON": Response(200, b"<html>upstream</html>"),
}


@pytest.mark.parametrize("answer", SILENT)
def test_answers_that_say_nothing_leave_the_payout_pending_and_sent_once(
    airtel_payouts, settings, answer
):
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    airtel_payouts.answer_next(*DISBURSE, SILENT[answer])
    outcome = AirtelMoney().send_payout(payout())
    # Over before a dribbled answer had gone out whole: cut at its deadline, never read to its end.
    assert not isinstance(SILENT[answer], Dribble) or airtel_payouts.cut_every_dribble()

    assert (outcome.status, outcome.failure_code) == ("pending", "")
    assert calls(airtel_payouts, DISBURSE) == 1  # never a second disbursement


def test_an_answer_lost_after_airtel_paid_is_settled_by_the_enquiry(airtel_payouts, settings):
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    airtel_payouts.disbursement_hold = True  # Airtel pays, then answers after our timeout
    request = payout()
    outcome = AirtelMoney().send_payout(request)
    assert outcome.status == "pending" and outcome.raw["payout"] == "no answer in time"
    assert airtel_payouts.paid_out(MSISDN) == 2500  # it may have been paid: never failed

    airtel_payouts.released.set()
    assert status_of(request).status == "succeeded"
    assert calls(airtel_payouts, DISBURSE) == 1


@pytest.mark.parametrize(
    "answer",
    [
        Response(500, {"error": "internal"}),
        Response(503, {"error": "busy"}),
        Silence(3),
        Dribble(0.2),
    ],
    ids=["500", "503", "timeout", "dribble"],
)
def test_an_enquiry_without_an_answer_is_pending(airtel_payouts, settings, answer):
    settings.PROVIDER_HTTP_TIMEOUT = 0.5
    request = payout()
    AirtelMoney().send_payout(request)
    airtel_payouts.answer_next(*ENQUIRY, answer, times=4)  # its retries included

    assert status_of(request).status == "pending"
    # Each try cut at its deadline, its retries included, none read to its end.
    assert not isinstance(answer, Dribble) or airtel_payouts.cut_every_dribble()


def test_an_enquiry_for_a_payout_airtel_does_not_know_is_pending_never_failed(airtel_payouts):
    outcome = status_of(payout())  # the disbursement's answer was lost before Airtel saw it
    assert (outcome.status, outcome.failure_code) == ("pending", "")
    assert outcome.check_after and airtel_payouts.requests_to(*DISBURSE) == []


@pytest.mark.parametrize("missing", ["AIRTEL_CLIENT_SECRET", *PAYOUT_SETTINGS])
def test_payouts_without_their_credentials_are_unavailable(airtel_payouts, settings, missing):
    setattr(settings, missing, "")
    adapter = AirtelMoney()

    assert adapter.payouts_configured() is False
    with pytest.raises(ProviderUnavailable) as raised:
        adapter.send_payout(payout())
    assert raised.value.status == 503 and raised.value.code == "provider_unavailable"
    assert airtel_payouts.log == []


def test_the_registry_offers_live_payouts_only_with_their_credentials(airtel_payouts, settings):
    assert isinstance(registry.payouts(livemode=True, network="AIRTEL_MONEY"), AirtelMoney)
    assert registry.payouts_available(livemode=True, network="AIRTEL_MONEY")

    settings.AIRTEL_DISBURSEMENT_PIN = ""  # collections still work, payouts do not
    assert isinstance(registry.mobile_money(livemode=True, network="AIRTEL_MONEY"), AirtelMoney)
    assert not registry.payouts_available(livemode=True, network="AIRTEL_MONEY")
    with pytest.raises(ProviderUnavailable) as raised:
        registry.payouts(livemode=True, network="AIRTEL_MONEY")
    assert "Payouts to Airtel Money are not available in live mode" in raised.value.message


def test_no_token_means_no_disbursement(airtel_payouts, settings):
    settings.AIRTEL_CLIENT_SECRET = "not-the-secret"
    with pytest.raises(PayoutNotSent):
        AirtelMoney().send_payout(payout())
    assert airtel_payouts.requests_to(*DISBURSE) == []
    assert set(airtel_payouts.violations) == {"token: wrong client credentials"}
    airtel_payouts.violations.clear()


def test_an_unreadable_pin_key_sends_nothing(airtel_payouts, settings):
    settings.AIRTEL_DISBURSEMENT_PUBLIC_KEY = "bm90IGEga2V5"
    with pytest.raises(PayoutNotSent):
        AirtelMoney().send_payout(payout())
    assert airtel_payouts.log == []


def test_whole_units_only_without_calling_airtel(airtel_payouts):
    outcome = AirtelMoney().send_payout(payout(amount=12345))
    assert (outcome.status, outcome.failure_code) == ("failed", "amount_invalid")
    assert airtel_payouts.log == []


def test_the_fake_refuses_a_wrong_pin_and_a_resent_payout(airtel_payouts, settings):
    """The fake's strictness: what a faulty adapter would send is refused and recorded."""
    request = payout()
    assert AirtelMoney().send_payout(request).status == "succeeded"
    again = AirtelMoney().send_payout(request)  # what the adapter never does
    assert again.status == "pending"  # DP00900001017: "ask the enquiry"
    assert airtel_payouts.violations == [f"disbursement {request.reference} sent twice"]
    assert airtel_payouts.paid_out(MSISDN) == 2500
    airtel_payouts.violations.clear()

    settings.AIRTEL_DISBURSEMENT_PIN = "9999"
    refused = AirtelMoney().send_payout(payout())
    assert (refused.status, refused.failure_code) == ("failed", "provider_error")
    assert airtel_payouts.violations == [
        "disbursement: pin is not the wallet PIN encrypted with the PIN public key"
    ]
    airtel_payouts.violations.clear()


def test_logs_name_the_payout_and_never_the_pin_or_a_token(airtel_payouts, settings, caplog):
    caplog.set_level(logging.DEBUG)
    request = payout()
    outcome = AirtelMoney().send_payout(request)
    status_of(request)

    text = "\n".join(f"{r.name} {r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert request.reference in text
    sent_pin = airtel_payouts.requests_to(*DISBURSE)[0].json()["pin"]
    for secret in [
        settings.AIRTEL_CLIENT_SECRET,
        sent_pin,
        f"pin {settings.AIRTEL_DISBURSEMENT_PIN}",
        *airtel_payouts.tokens,
    ]:
        assert secret not in text
    assert sent_pin not in str(outcome.raw)
