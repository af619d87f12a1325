"""End to end on PostgreSQL and Redis with real Celery workers: a 1,000-row batch paid row by
row, and a worker killed (SIGKILL) midway, after which a new worker pays every row exactly once.
The books agree (manage.py checkledger) at the end."""

import pytest

from batches.models import BatchStatus, ItemStatus, PayoutBatch, PayoutBatchItem
from payments.models import Payout, PayoutStatus
from tests.deploy.test_drill import checkledger
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import wait_for
from webhooks.models import Event

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.django_db(transaction=True)]


def items(count: int) -> list[dict]:
    # The sandbox fails a payout to a number ending in 001 (recipient_invalid) or 004.
    return [
        {
            "phone": f"+243812345{index:03d}",
            "amount": 10000,
            "currency": "CDF",
            "network": "VODACOM_MPESA",
            "reference": f"NOV-{index:04d}",
        }
        for index in range(count)
    ]


def settled(batch_id: str) -> bool:
    return PayoutBatch.objects.get(pk=batch_id).status == BatchStatus.COMPLETE


def assert_paid_exactly_once(batch_id: str, count: int) -> None:
    rows = list(PayoutBatchItem.objects.filter(batch_id=batch_id).select_related("payout"))
    assert len(rows) == count
    assert all(row.payout_id for row in rows)
    assert len({row.payout_id for row in rows}) == count
    assert Payout.objects.filter(metadata__payout_batch=batch_id).count() == count
    for row in rows:
        assert row.status == row.payout.status, row
        assert row.payout.status in (PayoutStatus.SUCCEEDED, PayoutStatus.FAILED)
        assert row.payout.metadata["reference"] == row.reference


def test_a_batch_of_1000_rows_is_paid_by_the_worker_and_the_books_agree(
    api, merchant, celery_worker_process
):
    succeeded_mobile_money_charge(merchant, amount=10_000_000)
    celery_worker_process(beat=True, SANDBOX_MOBILE_MONEY_DELAY="0", BATCH_PAYOUT_RATE="100")
    created = api.post("/v1/payout_batches", {"items": items(1000)}, format="json")
    assert created.status_code == 201, created.content
    batch = created.json()
    assert batch["status"] == "processing"
    assert batch["counts"]["total"] == 1000

    wait_for(lambda: settled(batch["id"]), timeout=600, interval=1)
    assert_paid_exactly_once(batch["id"], 1000)
    shown = api.get(f"/v1/payout_batches/{batch['id']}").json()
    assert shown["status"] == "complete"
    assert shown["counts"] == {"total": 1000, "pending": 0, "succeeded": 998, "failed": 2}
    failed = PayoutBatchItem.objects.filter(batch_id=batch["id"], status=ItemStatus.FAILED)
    assert sorted(failed.values_list("row", "failure_code")) == [
        (1, "recipient_invalid"),
        (4, "provider_error"),
    ]
    (event,) = Event.objects.filter(type="payout_batch.completed")
    assert event.data["object"]["counts"]["succeeded"] == 998
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 20000
    books = checkledger()
    assert books.returncode == 0, books.stderr


def test_a_worker_killed_midway_pays_no_row_twice_and_leaves_none_behind(
    api, merchant, celery_worker_process
):
    succeeded_mobile_money_charge(merchant, amount=600_000)
    first = celery_worker_process(
        name="first", SANDBOX_MOBILE_MONEY_DELAY="0", BATCH_PAYOUT_RATE="2"
    )
    created = api.post("/v1/payout_batches", {"items": items(60)}, format="json")
    assert created.status_code == 201, created.content
    batch_id = created.json()["id"]
    paid = PayoutBatchItem.objects.filter(batch_id=batch_id, payout__isnull=False)
    wait_for(lambda: paid.count() >= 6, timeout=60)
    first.kill()  # SIGKILL: no chance to finish or give anything back
    first.wait(timeout=10)
    assert 0 < paid.count() < 60

    celery_worker_process(
        name="second",
        beat=True,
        SANDBOX_MOBILE_MONEY_DELAY="0",
        BATCH_PAYOUT_RATE="20",
        BATCH_RESUME_AFTER="2",
    )
    wait_for(lambda: settled(batch_id), timeout=240, interval=1)
    assert_paid_exactly_once(batch_id, 60)
    assert Event.objects.filter(type="payout_batch.completed").count() == 1
    books = checkledger()
    assert books.returncode == 0, books.stderr
