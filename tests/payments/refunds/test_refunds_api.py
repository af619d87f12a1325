"""POST/GET /v1/charges/{id}/refunds and /v1/refunds: the refund rules and their error codes."""

import pytest

from payments.models import Charge, Refund
from payments.providers.base import ProviderOutcome
from payments.services import charges
from sandbox.models import SandboxTransaction
from tests.factories import merchant_with_keys, succeeded_card_charge, succeeded_mobile_money_charge

pytestmark = pytest.mark.django_db

REFUND_FIELDS = {
    "id",
    "object",
    "livemode",
    "charge_id",
    "amount",
    "currency",
    "status",
    "reason",
    "metadata",
    "failure_code",
    "failure_message",
    "operator_reference",
    "created_at",
    "updated_at",
}


def refund(api, charge_id, body=None):
    return api.post(f"/v1/charges/{charge_id}/refunds", body or {}, format="json")


def assert_error(response, status, code, param=None):
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code, error
    if param is not None:
        assert error["param"] == param, error
    return error


def test_omitted_amount_refunds_the_whole_charge(api, merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=250000)
    response = refund(
        api, charge.id, {"reason": "requested_by_customer", "metadata": {"ticket": "T-9"}}
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert set(body) == REFUND_FIELDS
    assert body["id"].startswith("re_") and len(body["id"]) == 27
    assert body["object"] == "refund" and body["livemode"] is False
    assert body["charge_id"] == charge.id
    assert body["amount"] == 250000 and body["currency"] == "CDF"
    assert body["status"] == "succeeded"
    assert body["reason"] == "requested_by_customer"
    assert body["metadata"] == {"ticket": "T-9"}
    assert body["created_at"].endswith("Z")

    shown = api.get(f"/v1/charges/{charge.id}").json()
    assert shown["status"] == "succeeded" and shown["amount_refunded"] == 250000
    # The sandbox operator was asked exactly once, for that amount.
    asked = SandboxTransaction.objects.get(kind="refund", reference=body["id"])
    assert asked.amount == 250000 and asked.request_count == 1


def test_partial_then_full_then_exhausted(api, merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    first = refund(api, charge.id, {"amount": 3000})
    assert first.status_code == 201 and first.json()["amount"] == 3000
    assert api.get(f"/v1/charges/{charge.id}").json()["amount_refunded"] == 3000

    rest = refund(api, charge.id)
    assert rest.status_code == 201 and rest.json()["amount"] == 7000
    assert api.get(f"/v1/charges/{charge.id}").json()["amount_refunded"] == 10000

    error = assert_error(refund(api, charge.id), 400, "charge_not_refundable")
    assert "refunded in full" in error["message"]
    assert_error(refund(api, charge.id, {"amount": 100}), 400, "charge_not_refundable")
    assert Refund.objects.filter(charge=charge).count() == 2


def test_amount_above_what_remains_is_refused_and_leaves_nothing(api, merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    assert_error(
        refund(api, charge.id, {"amount": 10100}), 400, "amount_exceeds_refundable", "amount"
    )
    assert refund(api, charge.id, {"amount": 6000}).status_code == 201
    error = assert_error(
        refund(api, charge.id, {"amount": 4100}), 400, "amount_exceeds_refundable", "amount"
    )
    assert "4000" in error["message"]
    assert Refund.objects.filter(charge=charge).count() == 1
    charge.refresh_from_db()
    assert charge.amount_refunded == 6000


def test_only_succeeded_charges_can_be_refunded(api, merchant):
    pending = charges.charge_create(
        merchant=merchant,
        livemode=False,
        amount=5000,
        currency="CDF",
        phone="+243812345678",
        network="VODACOM_MPESA",
    )
    error = assert_error(refund(api, pending.id), 400, "charge_not_refundable")
    assert "pending" in error["message"]

    for status, code in (("failed", "provider_error"), ("declined", "insufficient_funds")):
        charge = charges.charge_create(
            merchant=merchant, livemode=False, amount=2000, currency="USD", payment_method="card"
        )
        charges.charge_apply_outcome(
            charge_id=charge.id, outcome=ProviderOutcome(status=status, failure_code=code)
        )
        assert_error(refund(api, charge.id, {"amount": 1000}), 400, "charge_not_refundable")
    assert not Refund.objects.exists()
    assert not SandboxTransaction.objects.filter(kind="refund").exists()


def test_mobile_money_refunds_take_whole_units_only(api, merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=5000, currency="USD")
    error = assert_error(refund(api, charge.id, {"amount": 1050}), 400, "amount_invalid", "amount")
    assert "whole units" in error["message"] and "multiple of 100" in error["message"]
    assert refund(api, charge.id, {"amount": 1000}).status_code == 201


def test_card_refunds_may_carry_cents(api, merchant):
    charge = succeeded_card_charge(merchant, amount=1999)
    first = refund(api, charge.id, {"amount": 550, "reason": "duplicate"})
    assert first.status_code == 201, first.content
    assert first.json()["currency"] == "USD" and first.json()["status"] == "succeeded"
    rest = refund(api, charge.id)
    assert rest.json()["amount"] == 1449
    charge.refresh_from_db()
    assert charge.amount_refunded == 1999 and charge.status == "succeeded"
    asked = SandboxTransaction.objects.get(kind="refund", reference=first.json()["id"])
    # The sandbox card provider is asked to refund the charge's payment, by its id.
    assert asked.request == {
        "charge": charge.id,
        "payment": charge.provider_reference,
        "then": "succeeded",
    }


@pytest.mark.parametrize(
    "body, code, param",
    [
        ({"amount": "1000"}, "amount_invalid", "amount"),
        ({"amount": 10.0}, "amount_invalid", "amount"),
        ({"amount": True}, "amount_invalid", "amount"),
        ({"amount": 0}, "amount_invalid", "amount"),
        ({"amount": -500}, "amount_invalid", "amount"),
        ({"reason": "changed_mind"}, "parameter_invalid", "reason"),
        ({"metadata": "x"}, "parameter_invalid", "metadata"),
        ({"metadata": {"n": 5}}, "parameter_invalid", "metadata"),
        ({"metadata": {"note": "4111 1111 1111 1111"}}, "card_data_forbidden", None),
        ({"currency": "CDF"}, "parameter_unknown", "currency"),
    ],
)
def test_bad_input_is_refused_with_the_contract_code(api, merchant, body, code, param):
    charge = succeeded_mobile_money_charge(merchant)
    assert_error(refund(api, charge.id, body), 400, code, param)
    assert not Refund.objects.exists()


def test_body_must_be_a_json_object(api, merchant):
    charge = succeeded_mobile_money_charge(merchant)
    response = api.post(f"/v1/charges/{charge.id}/refunds", "[1]", content_type="application/json")
    assert_error(response, 400, "invalid_json")


def test_other_merchant_or_other_mode_answers_404(api, live_api, merchant):
    charge = succeeded_mobile_money_charge(merchant)
    mine = refund(api, charge.id, {"amount": 1000}).json()

    other = merchant_with_keys(name="Autre boutique")
    other_api = api.__class__()
    other_api.credentials(HTTP_AUTHORIZATION=f"Bearer {other.test_key.plaintext}")
    for client in (other_api, live_api):
        assert_error(refund(client, charge.id), 404, "resource_missing")
        assert_error(client.get(f"/v1/charges/{charge.id}/refunds"), 404, "resource_missing")
        assert_error(client.get(f"/v1/refunds/{mine['id']}"), 404, "resource_missing")
        assert client.get("/v1/refunds").json()["data"] == []
    assert_error(refund(api, "ch_doesnotexist"), 404, "resource_missing")
    assert_error(api.get("/v1/refunds/re_doesnotexist"), 404, "resource_missing")
    charge.refresh_from_db()
    assert charge.amount_refunded == 1000


def test_retrieve_and_list_refunds_newest_first(api, merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    other_charge = succeeded_card_charge(merchant)
    made = [refund(api, charge.id, {"amount": 1000}).json()["id"] for _ in range(3)]
    elsewhere = refund(api, other_charge.id, {"amount": 100}).json()["id"]

    one = api.get(f"/v1/refunds/{made[0]}")
    assert one.status_code == 200 and one.json()["amount"] == 1000
    assert set(one.json()) == REFUND_FIELDS

    page = api.get(f"/v1/charges/{charge.id}/refunds", {"limit": 2}).json()
    assert page["object"] == "list" and page["url"] == f"/v1/charges/{charge.id}/refunds"
    assert page["limit"] == 2 and page["offset"] == 0 and page["has_more"] is True
    assert [r["id"] for r in page["data"]] == [made[2], made[1]]
    after = api.get(
        f"/v1/charges/{charge.id}/refunds", {"starting_after": made[1], "limit": 2}
    ).json()
    assert [r["id"] for r in after["data"]] == [made[0]] and after["has_more"] is False
    offset = api.get(f"/v1/charges/{charge.id}/refunds", {"offset": 2}).json()
    assert [r["id"] for r in offset["data"]] == [made[0]]

    everything = api.get("/v1/refunds").json()
    assert everything["url"] == "/v1/refunds"
    assert [r["id"] for r in everything["data"]] == [elsewhere, *reversed(made)]

    assert_error(api.get("/v1/refunds", {"limit": 101}), 400, "parameter_invalid", "limit")
    assert_error(api.get("/v1/refunds", {"status": "x"}), 400, "parameter_unknown", "status")
    assert_error(
        api.get(f"/v1/charges/{charge.id}/refunds", {"offset": "-1"}), 400, "parameter_invalid"
    )


def test_refund_keeps_amount_refunded_equal_to_refunds_not_failed(api, merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=9000)
    refund(api, charge.id, {"amount": 2000})
    refund(api, charge.id, {"amount": 3000, "metadata": {"sandbox_refund": "fail"}})
    refund(api, charge.id, {"amount": 1000, "metadata": {"sandbox_refund": "pending"}})
    charge = Charge.objects.get(pk=charge.id)
    kept = sum(r.amount for r in charge.refunds.exclude(status="failed"))
    assert charge.amount_refunded == kept == 3000
