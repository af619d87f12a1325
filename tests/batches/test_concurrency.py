"""On PostgreSQL, at once: two approvals of one batch approve it once, two workers on one
batch pay each row once, two batches holding one reference are not both submitted (the one
refused is told which row, and the API which item), and a row whose key a request of the
merchant holds waits for it."""

import threading

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, transaction
from django.http import JsonResponse
from django.urls import reverse
from django.utils import translation

from batches import services
from batches.errors import BatchHasProblems, BatchStatusInvalid, ReferenceTaken
from batches.models import BatchStatus, ItemStatus, PayoutBatch
from core.api import idempotency
from payments.models import Payout
from tests.factories import succeeded_mobile_money_charge
from tests.helpers import api_client, backends_waiting_on_a_lock, race, wait_for

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


def while_submitting(batch, then):
    """`then()`, in a thread of its own, while `batch` is being submitted (its references held,
    not yet committed); once `then` waits for that submission, it commits. What `then` gave."""
    held, release, outcome = threading.Event(), threading.Event(), []

    def submit_and_hold():
        try:
            with transaction.atomic():
                services.batch_submit(merchant=batch.merchant, livemode=False, batch_id=batch.id)
                held.set()
                release.wait(timeout=60)
        finally:
            connection.close()

    def run_then():
        try:
            outcome.append(then())
        except Exception as exc:  # noqa: BLE001 - the refusal is what is checked
            outcome.append(exc)
        finally:
            connection.close()

    holder, other = threading.Thread(target=submit_and_hold), threading.Thread(target=run_then)
    holder.start()
    try:
        assert held.wait(timeout=60)
        other.start()
        wait_for(lambda: not other.is_alive() or backends_waiting_on_a_lock() == 1)
    finally:
        release.set()
        holder.join()
    other.join()
    [result] = outcome
    return result


def test_a_batch_submitted_while_another_takes_its_reference_is_told_which_row(merchant):
    first, second = draft(merchant, 3, "DUP"), draft(merchant, 3, "DUP")

    def submit_second():
        with translation.override("en"):
            return services.batch_submit(merchant=merchant, livemode=False, batch_id=second.id)

    refused = while_submitting(first, submit_second)
    assert isinstance(refused, ReferenceTaken), refused
    assert (refused.row, refused.problem.code) == (2, "reference_duplicate")
    assert str(refused) == (
        f"Row 2: The reference DUP-0 was already used in payout batch {first.id} (row 2): it "
        "is not paid twice."
    )
    statuses = dict(PayoutBatch.objects.values_list("id", "status"))
    assert statuses == {first.id: BatchStatus.AWAITING_APPROVAL, second.id: BatchStatus.DRAFT}


def _api_items(count: int) -> list[dict]:
    return [
        {
            "phone": f"+243812345{i:03d}",
            "amount": 10000,
            "currency": "CDF",
            "network": "VODACOM_MPESA",
            "reference": f"DUP-{i}",
        }
        for i in range(count)
    ]


def test_an_api_batch_whose_reference_a_batch_being_submitted_takes_is_told_which_item(
    merchant_keys,
):
    """The first problem answers 400 with `param` `items[i].reference`, also when the batch
    holding the reference was being submitted at that very moment (it was said as a file to
    upload again, with no param)."""
    merchant = merchant_keys.merchant
    succeeded_mobile_money_charge(merchant, amount=1_000_000)
    held = draft(merchant, 3, "DUP")
    client = api_client(merchant_keys.test_key.plaintext)
    answer = while_submitting(
        held, lambda: client.post("/v1/payout_batches", {"items": _api_items(3)}, format="json")
    )
    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    assert (error["code"], error["param"]) == ("reference_duplicate", "items[0].reference")
    # in the words of the same request made once the other batch had been submitted
    later = client.post("/v1/payout_batches", {"items": _api_items(3)}, format="json")
    assert {**later.json()["error"], "request_id": None} == {**error, "request_id": None}
    assert PayoutBatch.objects.count() == 1


def test_two_api_batches_posted_at_once_with_one_reference(merchant_keys):
    succeeded_mobile_money_charge(merchant_keys.merchant, amount=10_000_000)
    key = merchant_keys.test_key.plaintext

    def post():
        answer = api_client(key).post(
            "/v1/payout_batches", {"items": _api_items(300)}, format="json"
        )
        return answer.status_code, answer.json()

    outcomes = race(post, count=2)
    assert sorted(status for status, _ in outcomes) == [201, 400], outcomes
    assert PayoutBatch.objects.count() == 1
    refused = next(body for status, body in outcomes if status == 400)["error"]
    assert (refused["code"], refused["param"]) == ("reference_duplicate", "items[0].reference")


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
