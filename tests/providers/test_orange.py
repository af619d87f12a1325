"""Orange Money live adapter (B2B RDC cashout, cashin refunds) against a local Orange API,
through the real API and services."""

import json
from datetime import timedelta

import pytest
import requests
from django.utils import timezone

from payments.models import Charge, Payout, Refund
from payments.providers import http
from payments.providers.base import RefundRequest
from payments.providers.orange import OrangeMoney
from payments.services import charges, refunds
from tests.factories import charge_via_api, paid_orange_charge, pending_refund_via_api
from tests.helpers import refund_event_types

pytestmark = pytest.mark.django_db

CHARGE = {"amount": 50000, "currency": "CDF", "phone": "+243851234567", "network": "ORANGE_MONEY"}
CALLBACK = "/providers/orange_money/callback"


def http_path(txn_or_service: str) -> str:
    return f"/orange-money-b2b/v1/cd/transactions/{txn_or_service}"


def notify(client, settings, body: dict, **extra):
    """Orange posts its notification with the partner profile's Authorization header."""
    return client.post(
        CALLBACK,
        json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=settings.ORANGE_CALLBACK_AUTHORIZATION,
        **extra,
    )


def status_queries(orange, txn: str) -> int:
    return [r.path for r in orange.log].count(http_path(txn))


def test_cashout_callback_and_confirming_status(
    orange, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    orange.queries_before_answer = 99  # only the customer's answer settles it
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    record = orange.transactions[charge.id]
    assert record["peerId"] == "851234567" and record["amount"] == 500
    charge.refresh_from_db()
    assert charge.status == "pending" and charge.provider_reference == record["reference"]

    body = orange.answer(charge.id)  # the customer confirms on the handset; Orange calls back
    assert set(body) == {
        "transactionId", "status", "peerId", "peerIdType", "amount", "currency", "reference",
    }  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        response = notify(client, settings, body)
        assert response.status_code == 200 and response.json() == {"received": True}
        assert status_queries(orange, charge.id) == 0  # answered at once; the query is queued
    charge.refresh_from_db()
    assert charge.status == "succeeded" and status_queries(orange, charge.id) == 1
    assert orange.token_requests == 1


def test_callback_with_a_wrong_token_is_ignored(
    orange, live_api, client, django_capture_on_commit_callbacks
):
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    body = orange.answer(charge.id)
    with django_capture_on_commit_callbacks() as queued:
        for url, payload, headers in (
            (CALLBACK, body, {"HTTP_AUTHORIZATION": "Basic Z3Vlc3M6Z3Vlc3M="}),
            (f"{CALLBACK}?notif_token=guess", body, {}),  # the earlier form is off
            (CALLBACK, {**body, "notif_token": "guess"}, {}),
            (CALLBACK, body, {}),
        ):
            response = client.post(
                url, json.dumps(payload), content_type="application/json", **headers
            )
            assert response.status_code == 401
            assert response.json()["error"]["code"] == "invalid_authorization"
    assert queued == []
    assert status_queries(orange, charge.id) == 0
    assert Charge.objects.get(pk=charge.id).status == "pending"


def test_callbacks_are_refused_when_no_token_is_configured(orange, live_api, client, settings):
    settings.ORANGE_CALLBACK_AUTHORIZATION = ""
    settings.ORANGE_NOTIF_TOKEN = ""
    response = client.post(CALLBACK, "{}", content_type="application/json")
    assert response.status_code == 403


def test_failed_cashout_found_by_the_poller(orange, live_api):
    orange.outcomes["851234567"] = ("FAILED", "E-INSUFFICIENT")
    orange.queries_before_answer = 1
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    charges.charge_refresh(charge_id=charge.id)
    assert Charge.objects.get(pk=charge.id).status == "pending"  # first query: still PENDING
    charges.charge_refresh(charge_id=charge.id)
    body = live_api.get(f"/v1/charges/{charge.id}").json()
    assert (body["status"], body["failure_code"]) == ("failed", "provider_error")
    assert "E-INSUFFICIENT" in body["failure_message"]


def test_wrong_client_secret_never_reaches_the_cashout(orange, live_api, settings):
    settings.ORANGE_CLIENT_SECRET = "wrong"
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    assert Charge.objects.get(pk=charge.id).status == "pending"
    assert orange.transactions == {}
    assert set(orange.violations) == {"token: Basic auth with client id and secret expected"}
    orange.violations.clear()


# --- refunds: a cashin of the refund to the phone that paid ------------------------------------

PEER = "851234567"


def refunded(live_api, charge: Charge) -> int:
    return live_api.get(f"/v1/charges/{charge.id}").json()["amount_refunded"]


def test_partial_then_remaining_refund_become_cashins_to_the_payer(
    orange, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    charge = paid_orange_charge(orange, live_api, **CHARGE)

    # The refund task runs once the reservation is committed, as it does live.
    with django_capture_on_commit_callbacks(execute=True):
        first = pending_refund_via_api(live_api, charge, 20000)["id"]
    cashin = orange.transactions[first]
    assert cashin["type"] == "cashin" and cashin["peerId"] == PEER
    assert (cashin["amount"], cashin["currency"]) == (200, "CDF")
    refund = Refund.objects.get(pk=first)
    assert refund.status == "pending" and refund.provider_reference == cashin["reference"]
    assert refunded(live_api, charge) == 20000

    refunds.refund_send(refund_id=first)  # a duplicated task sends nothing more
    assert refunds.refund_refresh(refund_id=first).status == "pending"  # Orange: PENDING
    assert refunds.refund_refresh(refund_id=first).status == "succeeded"
    assert status_queries(orange, first) == 2

    too_much = live_api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 40000}, format="json")
    assert too_much.json()["error"]["code"] == "amount_exceeds_refundable"
    rest = pending_refund_via_api(live_api, charge)["id"]
    assert refunds.refund_send(refund_id=rest).amount == 30000
    refunds.refund_refresh(refund_id=rest)
    refunds.refund_refresh(refund_id=rest)
    body = live_api.get(f"/v1/refunds/{rest}").json()
    assert (body["status"], body["amount"], body["failure_code"]) == ("succeeded", 30000, None)
    assert refunded(live_api, charge) == 50000
    assert live_api.get(f"/v1/charges/{charge.id}").json()["status"] == "succeeded"

    cashins = [r for r in orange.transactions.values() if r["type"] == "cashin"]
    assert [(r["transactionId"], r["amount"]) for r in cashins] == [
        (first, 200),
        (rest, 300),
    ]
    assert orange.refunded(PEER, "CDF") == orange.paid(PEER, "CDF") == 500
    assert refund_event_types(first) == refund_event_types(rest) == ["refund.succeeded"]
    assert "access_token" not in json.dumps(Refund.objects.get(pk=rest).provider_raw)
    refused = live_api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json")
    assert refused.json()["error"]["code"] == "charge_not_refundable"


def test_a_refused_cashin_fails_the_refund_and_frees_its_amount(orange, live_api, client, settings):
    charge = paid_orange_charge(orange, live_api, **CHARGE)
    orange.cashin_enabled = False  # the merchant account may not pay customers

    refund_id = pending_refund_via_api(live_api, charge)["id"]
    refunds.refund_send(refund_id=refund_id)
    body = live_api.get(f"/v1/refunds/{refund_id}").json()
    assert (body["status"], body["failure_code"]) == ("failed", "provider_error")
    assert "refused the refund" in body["failure_message"]
    assert "cashin" in body["failure_message"] and "not be enabled" in body["failure_message"]
    assert "SERVICE_NOT_ALLOWED" in body["failure_message"]
    raw = Refund.objects.get(pk=refund_id).provider_raw[-1]
    assert raw["code"] == "SERVICE_NOT_ALLOWED"  # Orange's answer, kept for staff
    assert refunded(live_api, charge) == 0
    assert refund_event_types(refund_id) == ["refund.failed"]
    assert refund_id not in orange.transactions

    orange.cashin_enabled = True  # enabled by Orange: the merchant tries again
    again = pending_refund_via_api(live_api, charge)["id"]
    refunds.refund_send(refund_id=again)
    refunds.refund_refresh(refund_id=again)
    assert refunds.refund_refresh(refund_id=again).status == "succeeded"
    assert refunded(live_api, charge) == 50000
    assert orange.refunded(PEER, "CDF") == 500


def test_a_cashin_orange_reports_failed_frees_the_amount(orange, live_api, client, settings):
    charge = paid_orange_charge(orange, live_api, **CHARGE)
    orange.cashin_outcome = ("FAILED", "E-CASHIN")
    orange.queries_before_answer = 0
    refund_id = pending_refund_via_api(live_api, charge, 10000)["id"]
    assert refunds.refund_send(refund_id=refund_id).status == "pending"
    refund = refunds.refund_refresh(refund_id=refund_id)
    assert (refund.status, refund.failure_code) == ("failed", "provider_error")
    assert refund.failure_message == "Orange Money did not complete the refund (E-CASHIN)."
    assert refunded(live_api, charge) == 0
    assert orange.refunded(PEER, "CDF") == 0


@pytest.mark.parametrize("answer", ["no answer in time", "gateway error"])
def test_a_cashin_without_a_clear_answer_stays_pending_until_the_status_query(
    orange, live_api, client, settings, answer
):
    charge = paid_orange_charge(orange, live_api, **CHARGE)
    if answer == "no answer in time":
        settings.PROVIDER_HTTP_TIMEOUT = 0.5
        orange.cashin_hold = True  # Orange takes the cashin but answers after our timeout
    else:
        orange.cashin_gateway_error = 504  # Orange takes the cashin, its gateway times out
    refund_id = pending_refund_via_api(live_api, charge)["id"]
    refund = refunds.refund_send(refund_id=refund_id)
    assert refund.status == "pending"
    if answer == "no answer in time":
        assert refund.provider_raw[-1]["cashin"] == "timeout"
    else:
        assert "HTTP 504" in refund.provider_raw[-1]["error"]
    assert orange.transactions[refund_id]["type"] == "cashin"  # it may have been paid
    assert [r.path for r in orange.log].count(http_path("cashin")) == 1  # sent once
    assert refunded(live_api, charge) == 50000

    assert refunds.refund_refresh(refund_id=refund_id).status == "pending"
    orange.released.set()
    assert refunds.refund_refresh(refund_id=refund_id).status == "succeeded"
    assert refunded(live_api, charge) == 50000
    assert refund_event_types(refund_id) == ["refund.succeeded"]


def test_a_refund_unknown_to_the_status_path_is_never_failed(orange, live_api, client, settings):
    charge = paid_orange_charge(orange, live_api, **CHARGE)
    orange.cashins_in_status = False  # the status path we assume does not cover cashins
    refund_id = pending_refund_via_api(live_api, charge, 30000)["id"]
    refunds.refund_send(refund_id=refund_id)
    for _ in range(2):
        refund = refunds.refund_refresh(refund_id=refund_id)
        assert refund.status == "pending"
    assert "confirm with Orange" in refund.provider_raw[-1]["refund"]
    assert refund.next_check_at > timezone.now() + timedelta(minutes=30)  # asked again hourly
    assert refunded(live_api, charge) == 30000
    assert refund_event_types(refund_id) == []


def test_no_token_means_no_cashin_and_a_failed_refund(orange, live_api, client, settings):
    charge = paid_orange_charge(orange, live_api, **CHARGE)
    http.tokens.clear()
    settings.ORANGE_CLIENT_SECRET = "wrong"
    refund_id = pending_refund_via_api(live_api, charge)["id"]
    refund = refunds.refund_send(refund_id=refund_id)
    assert (refund.status, refund.failure_code) == ("failed", "provider_error")
    assert "not sent" in refund.failure_message
    assert refund_id not in orange.transactions
    assert refunded(live_api, charge) == 0
    assert set(orange.violations) == {"token: Basic auth with client id and secret expected"}
    orange.violations.clear()


def test_a_cashin_that_breaks_orange_rules_is_refused_and_recorded(
    orange, live_api, client, settings
):
    charge = paid_orange_charge(orange, live_api, **CHARGE)
    settings.ORANGE_POS_ID = "ANOTHER-POS"
    refund_id = pending_refund_via_api(live_api, charge)["id"]
    refund = refunds.refund_send(refund_id=refund_id)
    assert refund.status == "failed" and refunded(live_api, charge) == 0
    assert orange.violations == ["cashin: posId"]
    orange.violations.clear()


def test_whole_units_only_without_calling_orange(orange):
    outcome = OrangeMoney().refund(
        RefundRequest(
            refund_id="re_" + "a" * 24, charge_id="ch_" + "a" * 24, amount=12345,
            charge_amount=50000, currency="CDF", provider_reference="", phone="+243851234567",
        )
    )  # fmt: skip
    assert (outcome.status, outcome.failure_code) == ("failed", "amount_invalid")
    assert orange.log == []


def test_the_fake_holds_cashins_to_orange_rules(orange, live_api, client, settings):
    """The fake's strictness: what a faulty adapter would send is refused and recorded."""
    charge = paid_orange_charge(orange, live_api, **CHARGE)
    token = next(iter(orange.tokens))
    good = {
        "peerId": PEER, "peerIdType": "msisdn", "amount": 100, "currency": "CDF",
        "posId": orange.pos_id, "transactionId": "re_" + "b" * 24,
    }  # fmt: skip

    def cashin(body, token=token):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        headers.update(orange.forms_headers("cashin"))
        return requests.post(f"{orange.url}{http_path('cashin')}", json=body, headers=headers)

    assert cashin(good, token=None).status_code == 401
    assert cashin({**good, "peerId": "243" + PEER}).status_code == 400
    assert cashin({**good, "amount": 1.5}).status_code == 400
    assert cashin({**good, "currency": "EUR"}).status_code == 400
    assert cashin({**good, "transactionId": charge.id}).status_code == 409  # a cashout's id
    assert orange.violations == [
        "no Bearer token",
        f"cashin: peerId '243{PEER}': 9 digits with an Orange prefix, no 243",
        "cashin: amount: whole units",
        "cashin: currency",
        "cashin: duplicate transactionId",
    ]
    orange.violations.clear()

    assert cashin(good).status_code == 202
    assert cashin({**good, "transactionId": good["transactionId"]}).status_code == 409
    orange.violations.clear()
    assert cashin({**good, "amount": 400, "transactionId": "re_" + "c" * 24}).status_code == 202
    assert orange.violations == []  # 100 + 400 = what the customer paid
    assert cashin({**good, "amount": 1, "transactionId": "re_" + "d" * 24}).status_code == 202
    assert orange.violations == [f"cashin re_{'d' * 24}: 501 CDF paid back to {PEER}, who paid 500"]
    orange.violations.clear()


def test_orange_calling_back_for_a_cashin_queues_the_refund_status_check(
    orange, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    orange.queries_before_answer = 99  # only the callback's check can settle it
    charge = paid_orange_charge(orange, live_api, **CHARGE)
    refund_id = pending_refund_via_api(live_api, charge)["id"]
    assert refunds.refund_send(refund_id=refund_id).status == "pending"

    body = orange.answer(refund_id)  # Orange completes the cashin and calls back
    with django_capture_on_commit_callbacks(execute=True) as queued:
        response = notify(client, settings, body)
    assert response.status_code == 200 and len(queued) == 1
    assert Refund.objects.get(pk=refund_id).status == "succeeded"
    assert refund_event_types(refund_id) == ["refund.succeeded"]
    assert status_queries(orange, refund_id) == 1

    # A repeat for the now final refund, or a refund id of another network, queues nothing.
    with django_capture_on_commit_callbacks() as queued:
        notify(client, settings, body)
        notify(client, settings, {**body, "transactionId": "re_unknown00000000000000000"})
    assert queued == []


def test_orange_calling_back_for_a_payout_cashin_queues_the_payout_status_check(
    orange, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    settings.ORANGE_PAYOUTS_ENABLED = True
    orange.queries_before_answer = 99  # only the callback's check can settle it
    paid_orange_charge(orange, live_api, **CHARGE)  # the live balance the payout comes from
    payout = {
        "amount": 20000,
        "currency": "CDF",
        "phone": CHARGE["phone"],
        "network": "ORANGE_MONEY",
    }
    with django_capture_on_commit_callbacks(execute=True):
        created = live_api.post("/v1/payouts", payout, format="json")
    assert created.status_code == 201, created.content
    payout_id = created.json()["id"]
    sent = Payout.objects.get(pk=payout_id)
    assert sent.status == "pending" and sent.provider_requested_at is not None
    assert orange.transactions[payout_id]["type"] == "cashin"
    sent.provider_reference = ""  # as when the cashin's answer was lost
    sent.save(update_fields=["provider_reference"])

    body = orange.answer(payout_id)  # Orange completes the cashin and calls back
    with django_capture_on_commit_callbacks(execute=True) as queued:
        response = notify(client, settings, body)
    assert response.status_code == 200 and len(queued) == 1
    settled = Payout.objects.get(pk=payout_id)
    assert settled.status == "succeeded"
    assert settled.provider_reference == body["reference"]

    # A repeat for the now final payout, or a payout id Orange never had, queues nothing.
    with django_capture_on_commit_callbacks() as queued:
        notify(client, settings, body)
        notify(client, settings, {**body, "transactionId": "po_unknown00000000000000000"})
    assert queued == []


def test_a_payment_settled_by_the_status_query_keeps_orange_s_transaction_id(orange, live_api):
    orange.queries_before_answer = 0
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    # The cashout's answer was lost (as after a timeout): we never learnt Orange's id from it.
    Charge.objects.filter(pk=charge.id).update(provider_reference="")

    charges.charge_refresh(charge_id=charge.id)
    charge.refresh_from_db()
    assert charge.status == "succeeded"
    assert charge.provider_reference == orange.transactions[charge.id]["reference"]


# --- speaking as the public integrations: discovery, forms headers, notifications ---------------

ROOT = "/orange-money-b2b/v1/cd"


def discovery_calls(orange) -> list[str]:
    return [r.path for r in orange.log if r.path in (f"{ROOT}/services",) or "/forms/" in r.path]


def test_transactions_carry_the_forms_token_of_their_service(orange, live_api):
    first = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=first.id)
    assert discovery_calls(orange) == [f"{ROOT}/services", f"{ROOT}/forms/cashout"]
    [forms] = orange.requests_to("GET", f"{ROOT}/forms/cashout")
    assert forms.headers["x-omr-services-token"] in orange.services_tokens
    assert forms.headers["service"] == "cashout"
    [cashout] = orange.requests_to("POST", http_path("cashout"))
    assert orange.forms_tokens[cashout.headers["x-omr-forms-token"]] == "cashout"
    assert cashout.headers["x-omr-forms-version"] == orange.forms_version
    assert cashout.headers["service"] == "cashout"

    second = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=second.id)
    assert len(discovery_calls(orange)) == 2  # both tokens are reused until they expire
    charges.charge_refresh(charge_id=second.id)
    [query] = orange.requests_to("GET", http_path(second.id))
    assert query.headers["service"] == "cashout"
    assert orange.token_requests == 1


def test_a_refund_fetches_the_cashin_form(orange, live_api, client, settings):
    charge = paid_orange_charge(orange, live_api, **CHARGE)
    refund_id = pending_refund_via_api(live_api, charge)["id"]
    refunds.refund_send(refund_id=refund_id)
    assert discovery_calls(orange)[-1] == f"{ROOT}/forms/cashin"
    [cashin] = orange.requests_to("POST", http_path("cashin"))
    assert orange.forms_tokens[cashin.headers["x-omr-forms-token"]] == "cashin"
    assert cashin.headers["service"] == "cashin"


def test_expired_forms_tokens_are_renewed_for_the_next_transaction(orange, live_api):
    charges.charge_request_payment(charge_id=charge_via_api(live_api, **CHARGE).id)
    orange.expire_discovery_tokens()  # Orange forgot them: the cached ones are refused
    refused = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=refused.id)
    assert Charge.objects.get(pk=refused.id).status == "pending"  # 401: never sent twice
    assert refused.id not in orange.transactions
    assert [r.path for r in orange.log].count(http_path("cashout")) == 2

    again = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=again.id)
    assert again.id in orange.transactions  # fresh services and forms tokens
    assert discovery_calls(orange).count(f"{ROOT}/services") == 2


def test_a_forms_request_with_an_expired_services_token_asks_for_a_new_one(orange, live_api):
    charges.charge_request_payment(charge_id=charge_via_api(live_api, **CHARGE).id)
    http.tokens.forget(OrangeMoney()._forms_key("cashout"))
    orange.expire_discovery_tokens()
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    assert charge.id in orange.transactions
    assert discovery_calls(orange).count(f"{ROOT}/forms/cashout") == 3  # refused, then renewed


def test_no_forms_token_means_no_cashin_and_a_failed_refund(orange, live_api, client, settings):
    from tests.fakes.base import Response

    charge = paid_orange_charge(orange, live_api, **CHARGE)
    orange.answer_next("GET", f"{ROOT}/forms/cashin", Response(503, {"message": "down"}), times=4)
    refund_id = pending_refund_via_api(live_api, charge)["id"]
    refund = refunds.refund_send(refund_id=refund_id)
    assert (refund.status, refund.failure_code) == ("failed", "provider_error")
    assert "not sent" in refund.failure_message
    assert refund_id not in orange.transactions
    assert refunded(live_api, charge) == 0


def test_without_the_forms_discovery_nothing_of_it_is_sent(orange, live_api, settings):
    settings.ORANGE_FORMS = False
    orange.require_forms = False  # an account whose transactions take no forms headers
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    assert charge.id in orange.transactions and discovery_calls(orange) == []
    [cashout] = orange.requests_to("POST", http_path("cashout"))
    assert not {"x-omr-forms-token", "x-omr-forms-version", "service"} & set(cashout.headers)


def test_the_fake_refuses_transactions_without_their_forms_headers(orange, live_api, settings):
    """The local Orange's strictness: the cashout the adapter used to send is refused."""
    settings.ORANGE_FORMS = False  # as before the discovery: no forms headers
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    assert charge.id not in orange.transactions
    assert orange.violations == ["cashout: no x-omr-forms-token"]
    orange.violations.clear()

    token = next(iter(orange.tokens))
    body = {"peerId": PEER, "peerIdType": "msisdn", "amount": 100, "currency": "CDF",
            "posId": orange.pos_id, "transactionId": "ch_" + "e" * 24}  # fmt: skip
    wrong = {**orange.forms_headers("cashin"), "service": "cashout"}
    answer = requests.post(
        f"{orange.url}{http_path('cashout')}",
        json=body,
        headers={"Authorization": f"Bearer {token}", **wrong},
    )
    assert answer.status_code == 401
    assert orange.violations == ["cashout: forms token of the cashin service"]
    orange.violations.clear()


def test_the_notification_s_reference_is_kept_as_orange_s_id(
    orange, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    orange.queries_before_answer = 99
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    Charge.objects.filter(pk=charge.id).update(provider_reference="")  # the 202 was lost
    body = orange.answer(charge.id)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"{CALLBACK}/notifications",  # Orange appends /notifications to the URL it was given
            json.dumps(body),
            content_type="application/json",
            HTTP_AUTHORIZATION=settings.ORANGE_CALLBACK_AUTHORIZATION,
        )
    assert response.status_code == 200 and response.json() == {"received": True}
    charge.refresh_from_db()
    assert charge.status == "succeeded"
    assert (
        charge.provider_reference
        == body["reference"]
        == orange.transactions[charge.id]["reference"]
    )
    assert charge.provider_reference != charge.id


def test_the_earlier_callback_form_is_taken_only_while_its_token_is_set(
    orange, live_api, client, settings, eager_tasks, django_capture_on_commit_callbacks
):
    orange.queries_before_answer = 99
    charge = charge_via_api(live_api, **CHARGE)
    charges.charge_request_payment(charge_id=charge.id)
    body = orange.legacy_answer(charge.id)
    url = f"{CALLBACK}?notif_token=orange-notif-token-0123456789"
    refused = client.post(url, json.dumps(body), content_type="application/json")
    assert refused.status_code == 401  # ORANGE_NOTIF_TOKEN unset: the earlier form is off

    settings.ORANGE_NOTIF_TOKEN = "orange-notif-token-0123456789"
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url, json.dumps(body), content_type="application/json")
    assert response.status_code == 200
    charge.refresh_from_db()
    assert charge.status == "succeeded"
    assert charge.provider_reference == orange.transactions[charge.id]["reference"]

    settings.ORANGE_CALLBACK_AUTHORIZATION = ""  # only the earlier form configured
    response = client.post(url, json.dumps(body), content_type="application/json")
    assert response.status_code == 200
    wrong = client.post(
        f"{CALLBACK}?notif_token=guess", json.dumps(body), content_type="application/json"
    )
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_notif_token"


@pytest.mark.parametrize(
    "body, ours, reference",
    [
        (
            {"transactionId": "ch_1", "reference": "MP211208.1349.A00129"},
            "ch_1",
            "MP211208.1349.A00129",
        ),
        (
            {"status": "SUCCESS", "transactionData": {"transactionId": "ch_1", "txnId": "CI2"}},
            "ch_1",
            "CI2",
        ),
        ({"status": "PENDING", "transactionData": {"transactionId": "ch_1"}}, "ch_1", ""),
        ({"partnerTransactionId": "ch_1", "transactionId": "OM9"}, "ch_1", "OM9"),
        ({"transactionId": "ch_1"}, "ch_1", ""),
    ],
)
def test_orange_s_id_is_never_our_own(body, ours, reference):
    from payments.providers.orange import orange_reference

    assert orange_reference(body, ours) == reference


def test_every_assumption_comes_from_a_setting(settings):
    from payments.providers.orange import assumptions

    settings.ORANGE_API_PATH = "/orange-money-b2b/v1/sx"
    settings.ORANGE_CASHOUT_SERVICE = "omcashout"
    settings.ORANGE_REFERENCE_FIELDS = ["txnid"]
    a = assumptions()
    assert a.transactions(a.cashout_service) == "/orange-money-b2b/v1/sx/transactions/omcashout"
    assert a.reference_fields == ("txnid",)
