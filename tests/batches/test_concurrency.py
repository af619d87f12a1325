"""On PostgreSQL, at once: two approvals of one batch approve it once, two workers on one
batch pay each row once, two batches holding one reference are not both submitted, and a row
whose key a request of the merchant holds waits for it."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.http import JsonResponse
from django.urls import reverse

from batches import services
from batches.errors import BatchHasProblems, BatchStatusInvalid
from batches.models import BatchStatus, ItemStatus, PayoutBatch
from core.api import idempotency
from payments.models import Payout
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

HEADER = "phone,amount,currency,network,reference,description\n"


def draft(merchant, count: int, prefix: str = "R") -> PayoutBatch:
    lines = "".join(f"+243812345{i:03d},100,CDF,,{prefix}-{i},\n" for i in range(count))
    return services.batch_create_from_file(
        merchant=merchant, livemode=False, data=(HEADER + lines).encode()
    )


@pytest.fixture
def members():
    model = get_user_model()
    return [model.objects.create_user(name) for name in ("amani", "bijou", "chance")]


def test_two_members_approving_at_once_approve_once_and_rows_are_paid_once(merchant, members):
    succeeded_mobile_money_charge(merchant, amount=1_000_000)
    batch = draft(merchant, 20)
    services.batch_submit(
        merchant=merchant, livemode=False, batch_id=batch.id, user_id=members[0].pk
    )

    def approve(user):
        return lambda: services.batch_approve(
            merchant=merchant, livemode=False, batch_id=batch.id, user_id=user.pk,
            require_second_approver=True,
        )  # fmt: skip

    approvals = race(_alternating([approve(members[1]), approve(members[2])]), count=2)
    approved = [item for item in approvals if isinstance(item, PayoutBatch)]
    refused = [item for item in approvals if isinstance(item, BatchStatusInvalid)]
    assert (len(approved), len(refused)) == (1, 1), approvals
    assert PayoutBatch.objects.get().status == BatchStatus.PROCESSING

    # Two workers on the batch at once share its rows out.
    paid = race(lambda: services.batch_pay(batch_id=batch.id), count=2)
    assert sum(paid) == 20, paid
    assert Payout.objects.count() == 20
    items = batch.items.all()
    assert {item.status for item in items} == {ItemStatus.PENDING}
    assert len({item.payout_id for item in items}) == 20


def _alternating(calls):
    """A callable that runs calls[0] the first time it is called, calls[1] the second…"""
    import threading

    lock = threading.Lock()
    index = iter(range(len(calls)))

    def run():
        with lock:
            call = calls[next(index)]
        return call()

    return run


def test_two_batches_holding_one_reference_are_not_both_submitted(merchant):
    first, second = draft(merchant, 5, "DUP"), draft(merchant, 5, "DUP")

    def submit(batch):
        return lambda: services.batch_submit(merchant=merchant, livemode=False, batch_id=batch.id)

    outcomes = race(_alternating([submit(first), submit(second)]), count=2)
    submitted = [item for item in outcomes if isinstance(item, PayoutBatch)]
    refused = [item for item in outcomes if isinstance(item, BatchHasProblems)]
    assert (len(submitted), len(refused)) == (1, 1), outcomes
    statuses = sorted(PayoutBatch.objects.values_list("status", flat=True))
    assert statuses == [BatchStatus.AWAITING_APPROVAL, BatchStatus.DRAFT]


def test_a_row_whose_key_a_running_request_holds_stays_queued_until_it_is_free(merchant):
    succeeded_mobile_money_charge(merchant, amount=1_000_000)
    batch = draft(merchant, 3)
    services.batch_submit(merchant=merchant, livemode=False, batch_id=batch.id)
    services.batch_approve(merchant=merchant, livemode=False, batch_id=batch.id)
    held, release = threading.Event(), threading.Event()
    scope = idempotency.Scope(
        merchant=merchant,
        livemode=False,
        key=f"{batch.id}:R-1",
        method="POST",
        path=reverse("payouts"),
        fingerprint=idempotency.fingerprint({"amount": 10000}),
    )

    def refused_later():  # the merchant's POST /v1/payouts with the row's key, still running
        held.set()
        release.wait(timeout=30)
        return JsonResponse({"error": {"code": "phone_invalid"}}, status=400)  # stores nothing

    def merchant_request():
        try:
            idempotency.run(scope=scope, operation=refused_later)
        finally:
            connection.close()

    request = threading.Thread(target=merchant_request)
    request.start()
    try:
        assert held.wait(timeout=30)
        assert services.batch_pay(batch_id=batch.id) == 2
        waiting = batch.items.get(row=3)
        assert (waiting.status, waiting.payout_id, waiting.failure_code) == (
            ItemStatus.QUEUED, None, "",
        )  # fmt: skip
        assert PayoutBatch.objects.get().next_run_at is not None  # the batch comes back to it
    finally:
        release.set()
        request.join()
    assert services.batch_pay(batch_id=batch.id) == 1
    assert {item.status for item in batch.items.all()} == {ItemStatus.PENDING}
    assert Payout.objects.count() == 3
