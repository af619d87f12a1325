"""The payout batch endpoints as /v1/openapi.json describes them: the bodies really sent, the
`payout_batch.completed` event among the events, and the documented request."""

import pytest
from django.test import Client

from batches import services
from batches.models import PayoutBatch
from payments.providers.base import ProviderOutcome
from payments.services import payouts
from tests.factories import succeeded_mobile_money_charge
from tests.payments.api.test_openapi import assert_conforms, validator

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def document() -> dict:
    return Client().get("/v1/openapi.json").json()


def test_the_batch_its_rows_and_its_event_are_as_described(document, api, merchant):
    succeeded_mobile_money_charge(merchant, amount=100000)

    def check(path: str, url: str, body=None, status: int = 200, method: str = "get"):
        response = api.get(url) if method == "get" else api.post(url, body, format="json")
        assert response.status_code == status, response.content
        assert_conforms(document, path, method, response)
        return response.json()

    rows = [
        {"phone": "+243812345678", "amount": 10000, "currency": "CDF",
         "network": "VODACOM_MPESA", "reference": "A-1", "description": "Prime"},
        {"phone": "+243971234001", "amount": 10000, "currency": "CDF",
         "network": "AIRTEL_MONEY", "reference": "A-2"},
    ]  # fmt: skip
    batch = check("/v1/payout_batches", "/v1/payout_batches", {"items": rows}, 201, "post")
    check("/v1/payout_batches", "/v1/payout_batches", {"items": [{}]}, 400, "post")
    services.batch_pay(batch_id=batch["id"])
    for item in PayoutBatch.objects.get().items.all():
        payouts.payout_apply_outcome(
            payout_id=item.payout_id,
            outcome=ProviderOutcome(
                status="failed" if item.row else "succeeded",
                failure_code="recipient_invalid" if item.row else "",
                failure_message="No such wallet." if item.row else "",
            ),
        )
    shown = check("/v1/payout_batches/{batch_id}", f"/v1/payout_batches/{batch['id']}")
    assert shown["status"] == "complete"
    items = check("/v1/payout_batches/{batch_id}/items", f"/v1/payout_batches/{batch['id']}/items")
    assert [item["status"] for item in items["data"]] == ["succeeded", "failed"]
    check("/v1/payout_batches/{batch_id}", "/v1/payout_batches/pob_nothing", status=404)
    events = check("/v1/events", "/v1/events?type=payout_batch.completed")["data"]
    assert [event["data"]["object"]["id"] for event in events] == [batch["id"]]
    check("/v1/events/{event_id}", f"/v1/events/{events[0]['id']}")


def test_the_documented_request_is_one_the_api_takes(document, api, merchant):
    succeeded_mobile_money_charge(merchant, amount=10_000_000)
    operation = document["paths"]["/v1/payout_batches"]["post"]
    media = operation["requestBody"]["content"]["application/json"]
    (example,) = media["examples"].values()
    validator(document, media["schema"]).validate(example["value"])
    assert api.post("/v1/payout_batches", example["value"], format="json").status_code == 201
