"""End to end: POST /v1/payouts → real Celery worker (with beat) on Redis → sandbox operator →
payout settled → signed payout event received; the ledger and the balance agree."""

import pytest

from payments.services.ledger import ledger_check
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import wait_for

pytestmark = [pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def test_a_payout_is_paid_by_the_worker_and_its_event_delivered(
    api,
    merchant,
    receiver,
    celery_worker_process,
):
    succeeded_mobile_money_charge(merchant, amount=30000)
    celery_worker_process(beat=True, SANDBOX_MOBILE_MONEY_DELAY="1")
    paid = api.post(
        "/v1/payouts",
        {
            "amount": 10000,
            "currency": "CDF",
            "phone": "+243812345678",
            "network": "VODACOM_MPESA",
            "callback_url": receiver.url("/payouts/paid"),
        },
        format="json",
    )
    refused = api.post(
        "/v1/payouts",
        {
            "amount": 5000,
            "currency": "CDF",
            "phone": "+243971234001",
            "network": "AIRTEL_MONEY",
            "callback_url": receiver.url("/payouts/refused"),
        },
        format="json",
    )
    assert (paid.status_code, refused.status_code) == (201, 201), (paid.content, refused.content)
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 15000

    got = wait_for(lambda: len(receiver.verified()) == 2 and receiver.verified(), timeout=40)
    by_path = {hook.path: hook.verified for hook in got}
    assert by_path["/payouts/paid"]["type"] == "payout.succeeded"
    assert by_path["/payouts/paid"]["data"]["object"]["id"] == paid.json()["id"]
    assert by_path["/payouts/refused"]["type"] == "payout.failed"
    assert by_path["/payouts/refused"]["data"]["object"]["failure_code"] == "recipient_invalid"
    assert api.get(f"/v1/payouts/{paid.json()['id']}").json()["status"] == "succeeded"
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 20000
    types = [row["type"] for row in api.get("/v1/balance_transactions").json()["data"]]
    assert sorted(types) == ["charge", "payout", "payout", "payout_failure"]
    assert ledger_check() == []
