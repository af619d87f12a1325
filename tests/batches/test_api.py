"""POST /v1/payout_batches, GET /v1/payout_batches/{id} and its rows: every row checked before
anything is paid, the first problem named `items[i].field`, idempotent like every POST."""

import pytest

from batches import services
from batches.models import ItemStatus, PayoutBatch, PayoutBatchItem
from payments.models import Payout
from payments.providers.base import ProviderOutcome
from payments.services import payouts
from tests.factories import merchant_with_keys, succeeded_mobile_money_charge
from tests.helpers import api_client, assert_error

pytestmark = pytest.mark.django_db


def item(index: int = 0, **fields) -> dict:
    return {
        "phone": "+243812345678",
        "amount": 10000,
        "currency": "CDF",
        "network": "VODACOM_MPESA",
        "reference": f"REF-{index}",
        **fields,
    }


def items(count: int, **fields) -> list[dict]:
    return [item(index, **fields) for index in range(count)]


@pytest.fixture
def funded(merchant):
    succeeded_mobile_money_charge(merchant, amount=1_000_000)
    return merchant


def test_a_batch_is_created_approved_at_once_and_shown(api, funded):
    body = {"items": [*items(2), item(2, description="Prime", network="VODACOM_MPESA")]}
    created = api.post("/v1/payout_batches", body, format="json")
    assert created.status_code == 201, created.content
    batch = created.json()
    assert batch["id"].startswith("pob_") and len(batch["id"]) == 28
    assert batch["object"] == "payout_batch"
    assert batch["status"] == "processing"
    assert batch["livemode"] is False
    assert batch["counts"] == {"total": 3, "pending": 3, "succeeded": 0, "failed": 0}
    assert batch["totals"] == [{"currency": "CDF", "amount": 30000}]
    assert batch["created_at"].endswith("Z")
    assert api.get(f"/v1/payout_batches/{batch['id']}").json() == batch
    listed = api.get(f"/v1/payout_batches/{batch['id']}/items", {"limit": 2}).json()
    assert listed["object"] == "list" and listed["has_more"] is True
    assert listed["url"] == f"/v1/payout_batches/{batch['id']}/items"
    assert [row["row"] for row in listed["data"]] == [0, 1]
    assert listed["data"][0] == {
        "object": "payout_batch_item",
        "livemode": False,
        "row": 0,
        "phone": "+243812345678",
        "amount": 10000,
        "currency": "CDF",
        "network": "VODACOM_MPESA",
        "reference": "REF-0",
        "description": None,
        "status": "queued",
        "payout": None,
        "failure_code": None,
        "failure_message": None,
    }
    after = api.get(f"/v1/payout_batches/{batch['id']}/items", {"starting_after": "1"}).json()
    assert [row["row"] for row in after["data"]] == [2]
    assert after["data"][0]["description"] == "Prime"


@pytest.mark.parametrize(
    ("rows", "param", "code"),
    [
        ([item(0), item(1, phone="+24381234567")], "items[1].phone", "phone_invalid"),
        ([item(0), item(1, phone="0812345678")], "items[1].phone", "phone_invalid"),
        ([item(0, phone="+243971234567")], "items[0].phone", "phone_network_mismatch"),
        ([item(0, amount="100")], "items[0].amount", "amount_invalid"),
        ([item(0, amount=100.0)], "items[0].amount", "amount_invalid"),
        ([item(0, amount=150)], "items[0].amount", "amount_invalid"),
        ([item(0, amount=0)], "items[0].amount", "amount_invalid"),
        ([item(0, currency="EUR")], "items[0].currency", "currency_not_supported"),
        ([item(0, network="MTN")], "items[0].network", "parameter_invalid"),
        ([{k: v for k, v in item(0).items() if k != "network"}], "items[0].network",
         "parameter_missing"),
        ([{k: v for k, v in item(0).items() if k != "amount"}], "items[0].amount",
         "parameter_missing"),
        ([item(0, reference="")], "items[0].reference", "parameter_missing"),
        ([item(0, reference="R" * 101)], "items[0].reference", "parameter_invalid"),
        ([item(0, description="d" * 1001)], "items[0].description", "parameter_invalid"),
        ([item(0), item(1), item(2, reference="REF-0")], "items[2].reference",
         "reference_duplicate"),
        ([item(0, phone=5)], "items[0].phone", "parameter_invalid"),
        ([item(0, colour="red")], "items[0].colour", "parameter_unknown"),
        ([item(0), "x"], "items[1]", "parameter_invalid"),
        ([item(0), item(1, description="Carte 4111 1111 1111 1111")], "items[1].description",
         "card_data_forbidden"),
        ([item(0, reference="4111-1111-1111-1111")], "items[0].reference", "card_data_forbidden"),
        ([item(0, cvv="123")], "items[0].cvv", "card_data_forbidden"),
        ([item(0, note={"x": "4111111111111111"})], "items[0].note[x]", "card_data_forbidden"),
        # Card data is looked for first, in every item, before any other problem is.
        ([item(0, phone="+1"), item(1, description="4111111111111111")], "items[1].description",
         "card_data_forbidden"),
        ([], "items", "parameter_invalid"),
    ],
)  # fmt: skip
def test_every_rule_answers_400_for_the_first_problem_and_nothing_is_made(
    api, funded, rows, param, code
):
    answer = api.post("/v1/payout_batches", {"items": rows}, format="json")
    assert_error(answer, 400, "invalid_request_error", code)
    assert answer.json()["error"]["param"] == param
    assert not PayoutBatch.objects.exists() and not PayoutBatchItem.objects.exists()


def test_the_first_problem_is_the_first_row_then_the_first_column(api, funded):
    rows = [item(0), item(1, amount=5, currency="EUR"), item(2, phone="+1")]
    answer = api.post("/v1/payout_batches", {"items": rows}, format="json")
    assert answer.json()["error"]["param"] == "items[1].amount"


def test_a_network_limit_is_said_with_the_limits(api, funded, settings):
    settings.NETWORK_LIMITS = {
        **settings.NETWORK_LIMITS,
        "VODACOM_MPESA": {"CDF": (10000, 500000), "USD": (100, 250000)},
    }
    answer = api.post("/v1/payout_batches", {"items": [item(0, amount=600000)]}, format="json")
    assert_error(answer, 400, "invalid_request_error", "amount_invalid")
    assert answer.json()["error"]["param"] == "items[0].amount"
    assert "5,000.00" in answer.json()["error"]["message"]


def test_a_reference_of_an_earlier_batch_is_refused(api, funded):
    assert api.post("/v1/payout_batches", {"items": items(2)}, format="json").status_code == 201
    again = api.post("/v1/payout_batches", {"items": [item(5), item(1)]}, format="json")
    assert_error(again, 400, "invalid_request_error", "reference_duplicate")
    assert again.json()["error"]["param"] == "items[1].reference"
    assert "pob_" in again.json()["error"]["message"]


def test_another_merchants_references_are_its_own(api, funded):
    assert api.post("/v1/payout_batches", {"items": items(1)}, format="json").status_code == 201
    other = merchant_with_keys(name="Autre")
    succeeded_mobile_money_charge(other.merchant, amount=100000)
    answer = api_client(other.test_key.plaintext).post(
        "/v1/payout_batches", {"items": items(1)}, format="json"
    )
    assert answer.status_code == 201, answer.content


def test_more_than_1000_items_are_refused(api, funded):
    answer = api.post("/v1/payout_batches", {"items": items(1001)}, format="json")
    assert_error(answer, 400, "invalid_request_error", "parameter_invalid")
    assert answer.json()["error"]["param"] == "items"


def test_unknown_fields_and_card_data_are_refused(api, funded):
    unknown = api.post("/v1/payout_batches", {"items": items(1), "x": 1}, format="json")
    assert_error(unknown, 400, "invalid_request_error", "parameter_unknown")
    card = api.post(
        "/v1/payout_batches",
        {"items": [item(0, description="4111 1111 1111 1111")]},
        format="json",
    )
    assert_error(card, 400, "invalid_request_error", "card_data_forbidden")
    assert not PayoutBatch.objects.exists()


def test_a_batch_the_balance_cannot_cover_is_refused_as_a_whole(api, merchant):
    succeeded_mobile_money_charge(merchant, amount=15000)
    answer = api.post("/v1/payout_batches", {"items": items(2)}, format="json")
    assert_error(answer, 400, "invalid_request_error", "balance_insufficient")
    assert not PayoutBatch.objects.exists()
    assert not Payout.objects.exists()


def test_live_mode_needs_the_merchant_approved(live_api, funded):
    answer = live_api.post("/v1/payout_batches", {"items": items(1)}, format="json")
    assert_error(answer, 403, "permission_error", "live_mode_not_approved")
    assert not PayoutBatch.objects.exists()


def test_idempotent_like_every_post(api, funded):
    headers = {"HTTP_IDEMPOTENCY_KEY": "batch-2026-11"}
    first = api.post("/v1/payout_batches", {"items": items(2)}, format="json", **headers)
    again = api.post("/v1/payout_batches", {"items": items(2)}, format="json", **headers)
    assert first.status_code == again.status_code == 201
    assert again["Idempotent-Replayed"] == "true"
    assert again.content == first.content
    assert PayoutBatch.objects.count() == 1
    other = api.post("/v1/payout_batches", {"items": items(3)}, format="json", **headers)
    assert_error(other, 400, "idempotency_error", "idempotency_key_reused")


def test_another_merchants_or_modes_batch_is_404(api, live_api, funded):
    batch = api.post("/v1/payout_batches", {"items": items(1)}, format="json").json()
    other = api_client(merchant_with_keys(name="Autre").test_key.plaintext)
    for client in (other, live_api):
        for path in (
            f"/v1/payout_batches/{batch['id']}",
            f"/v1/payout_batches/{batch['id']}/items",
        ):
            assert_error(client.get(path), 404, "invalid_request_error", "resource_missing")
    missing = api.get("/v1/payout_batches/pob_nope")
    assert_error(missing, 404, "invalid_request_error", "resource_missing")
    # As every other object's: the id is in the path, not a parameter.
    assert missing.json()["error"]["param"] is None
    assert missing.json()["error"]["message"] == "No such payout batch: 'pob_nope'."


def test_items_pages_refuse_bad_parameters(api, funded):
    batch = api.post("/v1/payout_batches", {"items": items(1)}, format="json").json()
    path = f"/v1/payout_batches/{batch['id']}/items"
    assert_error(api.get(path, {"limit": 0}), 400, "invalid_request_error", "parameter_invalid")
    for cursor in ("x", "²", "١"):  # digits of other scripts are no row number
        assert_error(api.get(path, {"starting_after": cursor}), 400, "invalid_request_error",
                     "parameter_invalid")  # fmt: skip
    assert_error(api.get(path, {"colour": "x"}), 400, "invalid_request_error",
                 "parameter_unknown")  # fmt: skip
    assert PayoutBatchItem.objects.get().status == ItemStatus.QUEUED


def test_problems_are_said_in_the_callers_language(api, funded):
    body = {"items": [item(0), item(1, amount=150)]}
    french = api.post("/v1/payout_batches", body, format="json", HTTP_ACCEPT_LANGUAGE="fr")
    english = api.post("/v1/payout_batches", body, format="json", HTTP_ACCEPT_LANGUAGE="en")
    assert "unités entières" in french.json()["error"]["message"]
    assert "whole units" in english.json()["error"]["message"]
    assert french.json()["error"]["param"] == english.json()["error"]["param"] == "items[1].amount"


def payout_body(batch_id: str, index: int = 0, **fields) -> dict:
    """The POST /v1/payouts that pays row `index` of items(), as a merchant would send it."""
    body = {"amount": 10000, "currency": "CDF", "phone": "+243812345678",
            "network": "VODACOM_MPESA", **fields}  # fmt: skip
    return {**body, "metadata": {"payout_batch": batch_id, "reference": f"REF-{index}"}}


def test_card_data_of_the_rest_of_the_body_is_named_as_ever(api, funded):
    answer = api.post("/v1/payout_batches", {"items": items(1), "cvv": "123"}, format="json")
    assert_error(answer, 400, "invalid_request_error", "card_data_forbidden")
    assert answer.json()["error"]["param"] == "cvv"


def test_each_row_is_paid_as_post_payouts_with_the_rows_key_would_pay_it(api, funded):
    body = {"items": [item(0, description="Prime"), item(1)]}
    batch_id = api.post("/v1/payout_batches", body, format="json").json()["id"]
    assert services.batch_pay(batch_id=batch_id) == 2
    balance = api.get("/v1/balance").json()
    rows = list(PayoutBatchItem.objects.filter(batch_id=batch_id).order_by("row"))
    sent_by_row = [payout_body(batch_id, 0, description="Prime"), payout_body(batch_id, 1)]
    for row, sent in zip(rows, sent_by_row, strict=True):
        key = {"HTTP_IDEMPOTENCY_KEY": f"{batch_id}:{row.reference}"}
        again = api.post("/v1/payouts", sent, format="json", **key)
        assert again.status_code == 201, again.content
        assert again["Idempotent-Replayed"] == "true"
        assert again.json()["id"] == row.payout_id
        shown = api.get(f"/v1/payouts/{row.payout_id}")
        assert (again.json(), again["Content-Type"]) == (shown.json(), shown["Content-Type"])
        other = api.post("/v1/payouts", {**sent, "amount": 20000}, format="json", **key)
        assert_error(other, 400, "idempotency_error", "idempotency_key_reused")
    assert Payout.objects.count() == 2
    assert api.get("/v1/balance").json() == balance


def test_a_payout_made_with_a_rows_key_before_the_row_is_paid_is_the_rows(api, funded):
    batch_id = api.post("/v1/payout_batches", {"items": items(3)}, format="json").json()["id"]

    def made(index):
        key = {"HTTP_IDEMPOTENCY_KEY": f"{batch_id}:REF-{index}"}
        answer = api.post("/v1/payouts", payout_body(batch_id, index), format="json", **key)
        assert answer.status_code == 201, answer.content
        return answer.json()["id"]

    pending, settled = made(0), made(2)
    payouts.payout_apply_outcome(payout_id=settled, outcome=ProviderOutcome(status="succeeded"))
    assert services.batch_pay(batch_id=batch_id) == 3
    rows = list(PayoutBatchItem.objects.filter(batch_id=batch_id).order_by("row"))
    assert [(row.payout_id, row.status) for row in rows] == [
        (pending, ItemStatus.PENDING),
        (rows[1].payout_id, ItemStatus.PENDING),
        (settled, ItemStatus.SUCCEEDED),  # already settled: the row is too
    ]
    assert Payout.objects.count() == 3  # the merchant's two and the middle row's
    payouts.payout_apply_outcome(payout_id=pending, outcome=ProviderOutcome(status="succeeded"))
    payouts.payout_apply_outcome(
        payout_id=rows[1].payout_id, outcome=ProviderOutcome(status="succeeded")
    )
    assert PayoutBatch.objects.get().status == "complete"


def test_a_row_whose_key_was_used_with_another_body_fails_alone_in_words(api, funded):
    batch_id = api.post("/v1/payout_batches", {"items": items(2)}, format="json").json()["id"]
    key = {"HTTP_IDEMPOTENCY_KEY": f"{batch_id}:REF-1"}
    other = api.post("/v1/payouts", payout_body(batch_id, 1, amount=20000), format="json", **key)
    assert other.status_code == 201, other.content
    assert services.batch_pay(batch_id=batch_id) == 2
    first, second = PayoutBatchItem.objects.filter(batch_id=batch_id).order_by("row")
    assert first.status == ItemStatus.PENDING and first.payout_id
    assert (second.status, second.failure_code, second.payout_id) == (
        ItemStatus.FAILED, "idempotency_key_reused", None,
    )  # fmt: skip
    assert "another request body" in second.failure_message
    assert not second.reference_held
    assert Payout.objects.count() == 2  # the merchant's own and the first row's
