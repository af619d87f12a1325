"""A merchant's refund draws on the available balance like a payout (docs/guides/refunds.md): under
the same balance lock, refused with 400 balance_insufficient when the balance of that mode and
currency cannot cover it, so that money paid out is never refunded a second time from nothing. The
automatic refund of a late payment is covered by its own ledger row and never refused."""

import queue
from datetime import UTC, datetime
from io import StringIO
from itertools import accumulate

import pytest
import time_machine
from django.core.management import call_command

from checkout import services as checkout
from payments.models import Charge, LedgerEntry, Refund
from payments.services import charges, refunds
from tests.factories import (
    expire_session,
    make_session,
    settle,
    succeeded_live_charge,
    succeeded_mobile_money_charge,
    timed_out_charge,
)
from tests.helpers import api_client, assert_error, race

pytestmark = pytest.mark.postgres

ATTEMPT = {
    "payment_method": "mobile_money",
    "phone": "+243812345678",
    "network": "VODACOM_MPESA",
}
PAYOUT = {"currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}


def refund(api, charge_id, body=None, **headers):
    return api.post(f"/v1/charges/{charge_id}/refunds", body or {}, format="json", **headers)


def payout(api, amount, currency="CDF"):
    response = api.post(
        "/v1/payouts", {**PAYOUT, "amount": amount, "currency": currency}, format="json"
    )
    assert response.status_code == 201, response.content
    return response.json()


def available(api) -> dict[str, int]:
    body = api.get("/v1/balance").json()
    return {row["currency"]: row["amount"] for row in body["available"]}


def refused_for_balance(response, message: str) -> None:
    assert_error(response, 400, "invalid_request_error", "balance_insufficient")
    error = response.json()["error"]
    assert (error["param"], error["message"]) == ("amount", message)


@pytest.mark.django_db
def test_money_paid_out_cannot_be_refunded_a_second_time(api, merchant):
    # 1,000,000 CDF in, in three charges, and all of it paid out.
    paid = [
        succeeded_mobile_money_charge(merchant, amount=amount)
        for amount in (50_000_000, 30_000_000, 20_000_000)
    ]
    succeeded_mobile_money_charge(merchant, amount=900_000, currency="USD")
    assert available(api) == {"CDF": 100_000_000, "USD": 900_000}
    payout(api, 100_000_000)
    assert available(api)["CDF"] == 0

    for charge in paid:
        refused_for_balance(
            refund(api, charge.id),
            f"The available CDF balance is 0, less than the refund of {charge.amount}.",
        )
        refused_for_balance(
            refund(api, charge.id, {"amount": 100}),
            "The available CDF balance is 0, less than the refund of 100.",
        )
    # The USD balance does not pay for a CDF refund. The message follows Accept-Language.
    refused_for_balance(
        refund(api, paid[0].id, HTTP_ACCEPT_LANGUAGE="fr"),
        "Le solde disponible en CDF est de 0, inférieur au remboursement de 50000000.",
    )
    assert available(api) == {"CDF": 0, "USD": 900_000}
    assert not Refund.objects.exists()
    assert set(Charge.objects.values_list("amount_refunded", flat=True)) == {0}

    # New money comes in: refunds draw on it, up to what it holds, whichever charge they give back.
    succeeded_mobile_money_charge(merchant, amount=30_000_000)
    refused_for_balance(
        refund(api, paid[0].id),
        "The available CDF balance is 30000000, less than the refund of 50000000.",
    )
    given = refund(api, paid[0].id, {"amount": 30_000_000})
    assert given.status_code == 201, given.content
    assert given.json()["status"] == "succeeded"
    refused_for_balance(
        refund(api, paid[2].id), "The available CDF balance is 0, less than the refund of 20000000."
    )
    assert available(api) == {"CDF": 0, "USD": 900_000}


@pytest.mark.django_db
def test_the_other_modes_balance_does_not_cover_a_refund(api, live_api, merchant, settings):
    settings.PAYMENT_PROVIDERS = {
        **settings.PAYMENT_PROVIDERS,
        "live": {"VODACOM_MPESA": "sandbox.providers.SandboxMobileMoney"},
    }
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    payout(api, 10000)
    live = succeeded_live_charge(merchant, amount=50000)
    assert (available(api)["CDF"], available(live_api)["CDF"]) == (0, 50000)
    refused_for_balance(
        refund(api, charge.id), "The available CDF balance is 0, less than the refund of 10000."
    )
    assert refund(live_api, live.id, {"amount": 10000}).status_code == 201
    assert (available(api)["CDF"], available(live_api)["CDF"]) == (0, 40000)


@pytest.mark.django_db(transaction=True)
def test_refunds_and_payouts_racing_in_both_currencies_never_take_the_balance_below_zero(
    merchant_keys,
):
    """Each request in its own thread and database connection, through the whole HTTP stack,
    released together: eight requests per currency, each for a quarter of its balance, so that
    exactly four of them fit, whichever come first and whether they are refunds or payouts."""
    merchant = merchant_keys.merchant
    key = merchant_keys.test_key.plaintext
    paid = [succeeded_mobile_money_charge(merchant, amount=10000) for _ in range(4)]
    paid += [succeeded_mobile_money_charge(merchant, amount=5000, currency="USD") for _ in range(4)]
    jobs: queue.SimpleQueue = queue.SimpleQueue()
    for charge in paid:
        jobs.put(("refund", charge.currency, f"/v1/charges/{charge.id}/refunds", {}))
    for currency, amount in (("CDF", 10000), ("USD", 5000)):
        for _ in range(4):
            body = {**PAYOUT, "currency": currency, "amount": amount}
            jobs.put(("payout", currency, "/v1/payouts", body))

    def one_request():
        kind, currency, path, body = jobs.get_nowait()
        response = api_client(key).post(path, body, format="json")
        return kind, currency, response.status_code, response.json()

    results = race(one_request, count=16)

    assert not [r for r in results if isinstance(r, Exception)], results
    for currency in ("CDF", "USD"):
        answers = [(status, body) for _, cur, status, body in results if cur == currency]
        accepted = [body for status, body in answers if status == 201]
        refused = [(status, body["error"]["code"]) for status, body in answers if status != 201]
        assert len(accepted) == 4, answers
        assert refused == [(400, "balance_insufficient")] * 4, answers
        # Never below zero, at any row: the ledger in the order its rows were written.
        rows = LedgerEntry.objects.filter(merchant=merchant, livemode=False, currency=currency)
        amounts = rows.order_by("created_at", "id").values_list("amount", flat=True)
        assert min(accumulate(amounts)) >= 0
        assert sum(amounts) == 0
    assert available(api_client(key)) == {"CDF": 0, "USD": 0}
    refunded = Refund.objects.filter(merchant=merchant)
    assert refunded.count() == sum(
        1 for kind, _, status, _ in results if kind == "refund" and status == 201
    )
    out = StringIO()
    call_command("checkledger", stdout=out)
    assert "The ledger agrees with its sources" in out.getvalue()


@pytest.mark.django_db
def test_a_failed_refund_gives_its_amount_back_to_be_refunded_again(api, merchant, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    first, second = (succeeded_mobile_money_charge(merchant, amount=10000) for _ in range(2))
    payout(api, 10000)  # one charge's worth left
    pending = refund(api, first.id, {"metadata": {"sandbox_refund": "pending_fail"}}).json()
    assert pending["status"] == "pending"
    assert available(api)["CDF"] == 0  # reserved while the operator decides
    refused_for_balance(
        refund(api, second.id), "The available CDF balance is 0, less than the refund of 10000."
    )

    assert refunds.refund_refresh(refund_id=pending["id"]).status == "failed"
    rows = LedgerEntry.objects.filter(refund_id=pending["id"]).values_list("type", "amount")
    assert sorted(rows) == [("refund", -10000), ("refund_failure", 10000)]
    assert available(api)["CDF"] == 10000
    again = refund(api, first.id)
    assert again.status_code == 201, again.content
    assert (again.json()["status"], again.json()["amount"]) == ("succeeded", 10000)
    refused_for_balance(
        refund(api, second.id), "The available CDF balance is 0, less than the refund of 10000."
    )
    assert available(api)["CDF"] == 0


T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


@pytest.mark.django_db
def test_a_late_payments_refund_is_never_refused(api, merchant, settings):
    """The merchant's balance is 0 (all paid out) when the operator reports a payment made after
    its charge failed: the payment is given back all the same, from its own late_payment row."""
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3
    settings.MOBILE_MONEY_PROMPT_TIMEOUT = 300
    succeeded_mobile_money_charge(merchant, amount=20000)
    payout(api, 20000)
    assert available(api)["CDF"] == 0
    # The sandbox operator's 005 customer approves the prompt only after its deadline.
    charge = timed_out_charge(merchant, phone="+243812345005", at=T0, amount=7000)
    with time_machine.travel(charge.reconcile_next_at, tick=False):
        charge = charges.charge_reconcile(charge_id=charge.id)
    assert (charge.status, charge.late_payment_at is not None) == ("failed", True)
    [given] = Refund.objects.filter(charge=charge)
    assert (given.reason, given.amount, given.status) == ("late_payment", 7000, "pending")
    rows = LedgerEntry.objects.filter(charge=charge).values_list("type", "amount")
    assert sorted(rows) == [("late_payment", 7000), ("refund", -7000)]
    assert available(api)["CDF"] == 0


@pytest.mark.django_db
def test_a_success_on_an_expired_session_is_given_back_whatever_the_balance(api, merchant):
    """Its charge's own row (+amount) is what the automatic refund takes back: the balance,
    otherwise 0, stays 0."""
    succeeded_mobile_money_charge(merchant, amount=20000)
    payout(api, 20000)
    session = make_session(merchant)
    attempt = checkout.session_attempt_create(session_id=session.id, **ATTEMPT)
    expire_session(session)
    charge = settle(attempt, "succeeded")
    [given] = Refund.objects.filter(charge=charge)
    assert (given.reason, given.amount) == ("late_payment", session.amount)
    assert available(api)["CDF"] == 0


def test_the_api_reference_tells_of_balance_insufficient(client):
    document = client.get("/v1/openapi.json").json()
    operation = document["paths"]["/v1/charges/{charge_id}/refunds"]["post"]
    assert "400 balance_insufficient" in operation["description"]
    refused = operation["responses"]["400"]["content"]["application/json"]["examples"]
    error = refused["BalanceInsufficient"]["value"]["error"]
    assert (error["type"], error["code"], error["param"]) == (
        "invalid_request_error",
        "balance_insufficient",
        "amount",
    )
    assert "balance_insufficient" not in str(operation["responses"]["201"])
