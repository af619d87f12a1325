"""Balance checkpoints: a balance is the last checkpoint's total plus the ledger rows written since,
always equal to the sum of every row; a checkpoint waits for the transactions still writing rows,
so no row is left out of it or counted twice, whatever runs at the same time."""

import logging
import threading

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.models import Sum

from payments import selectors, services
from payments.models import BalanceCheckpoint, LedgerEntry
from payments.selectors import BalanceSums
from payments.services.ledger import ledger_check, ledger_checkpoint, ledger_checkpoints_ask
from tests.factories import merchant_with_keys, succeeded_mobile_money_charge
from tests.helpers import broker_down

pytestmark = pytest.mark.django_db


def plain_sum(merchant, currency="CDF", livemode=False) -> int:
    rows = LedgerEntry.objects.filter(merchant=merchant, livemode=livemode, currency=currency)
    return rows.aggregate(total=Sum("amount"))["total"] or 0


def checkpoint(merchant, currency="CDF", every=1):
    return ledger_checkpoint(
        merchant_id=merchant.pk, livemode=False, currency=currency, every=every
    )


def test_a_balance_is_its_last_checkpoint_and_the_rows_written_since(merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    succeeded_mobile_money_charge(merchant, amount=2500)
    assert checkpoint(merchant, every=3) is None  # two rows since the start: too few
    first = checkpoint(merchant, every=2)
    assert (first.epoch, first.total, first.entries) == (1, 12500, 2)
    assert set(LedgerEntry.objects.values_list("epoch", flat=True)) == {0}

    services.refund_create(charge=charge, amount=4000)
    succeeded_mobile_money_charge(merchant, amount=700)
    assert sorted(LedgerEntry.objects.values_list("epoch", "amount")) == [
        (0, 2500),
        (0, 10000),
        (1, -4000),
        (1, 700),
    ]
    sums = selectors.balance_sums(merchant=merchant, livemode=False)
    assert sums["CDF"] == BalanceSums(available=plain_sum(merchant), pending=0, rows=2)
    assert sums["CDF"].available == 9200  # 12500 − 4000 + 700: 2 rows read

    second = checkpoint(merchant)
    assert (second.epoch, second.total, second.entries) == (2, 9200, 4)
    assert selectors.balance_sums(merchant=merchant, livemode=False)["CDF"] == BalanceSums(
        9200, 0, 0
    )
    assert checkpoint(merchant) is None  # nothing since
    assert ledger_check() == []


def test_checkpoints_are_kept_per_merchant_mode_and_currency(merchant):
    other_merchant = merchant_with_keys().merchant
    succeeded_mobile_money_charge(merchant, amount=5000)
    succeeded_mobile_money_charge(merchant, amount=300, currency="USD")
    succeeded_mobile_money_charge(other_merchant, amount=9000)
    checkpoint(merchant)
    assert BalanceCheckpoint.objects.count() == 1
    succeeded_mobile_money_charge(merchant, amount=100, currency="USD")
    succeeded_mobile_money_charge(other_merchant, amount=1000)
    assert set(LedgerEntry.objects.values_list("currency", "epoch")) == {("CDF", 0), ("USD", 0)}
    assert selectors.balance_get(merchant=merchant, livemode=False) == {"CDF": 5000, "USD": 400}
    assert selectors.balance_get(merchant=other_merchant, livemode=False)["CDF"] == 10000
    assert selectors.balance_get(merchant=merchant, livemode=True) == {"CDF": 0, "USD": 0}
    assert ledger_check() == []


def test_the_balance_asks_a_worker_for_a_checkpoint_once_enough_rows_came(
    merchant_keys, api, settings, eager_tasks
):
    settings.LEDGER_CHECKPOINT_ROWS = 3
    merchant = merchant_keys.merchant
    for amount in (1000, 2000):
        succeeded_mobile_money_charge(merchant, amount=amount)
    assert api.get("/v1/balance").json()["available"][0] == {"currency": "CDF", "amount": 3000}
    assert not BalanceCheckpoint.objects.exists()  # 2 rows read one by one: below 3

    succeeded_mobile_money_charge(merchant, amount=4000)
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 7000
    made = BalanceCheckpoint.objects.get()
    assert (made.merchant_id, made.currency, made.epoch, made.total) == (
        merchant.pk,
        "CDF",
        1,
        7000,
    )
    assert api.get("/v1/balance").json()["available"][0]["amount"] == 7000
    assert ledger_check() == []


def test_a_payout_is_checked_against_checkpoint_and_rows_since(merchant_keys, api):
    merchant = merchant_keys.merchant
    succeeded_mobile_money_charge(merchant, amount=15000)
    checkpoint(merchant)
    succeeded_mobile_money_charge(merchant, amount=5000)
    body = {"currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
    assert api.post("/v1/payouts", {**body, "amount": 20100}, format="json").status_code == 400
    assert api.post("/v1/payouts", {**body, "amount": 20000}, format="json").status_code == 201
    assert (
        selectors.balance_get(merchant=merchant, livemode=False)["CDF"] == 0 == plain_sum(merchant)
    )
    assert ledger_check() == []


def test_a_payout_asks_for_a_checkpoint_once_it_commits(
    merchant_keys, api, settings, eager_tasks, django_capture_on_commit_callbacks
):
    settings.LEDGER_CHECKPOINT_ROWS = 2
    merchant = merchant_keys.merchant
    for amount in (15000, 5000):
        succeeded_mobile_money_charge(merchant, amount=amount)
    body = {"currency": "CDF", "phone": "+243812345678", "network": "VODACOM_MPESA"}
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/v1/payouts", {**body, "amount": 8000}, format="json")
    assert response.status_code == 201
    # The payout's check read two rows one by one; the checkpoint, run once the payout
    # committed, adds up those and the payout's own row.
    made = BalanceCheckpoint.objects.get()
    assert (made.epoch, made.total, made.entries) == (1, 12000, 3)
    assert LedgerEntry.objects.get(type="payout").epoch == 0
    assert selectors.balance_get(merchant=merchant, livemode=False)["CDF"] == 12000


def test_a_checkpoint_not_asked_for_leaves_the_balance_right_and_says_so(
    merchant, settings, caplog
):
    settings.LEDGER_CHECKPOINT_ROWS = 1
    succeeded_mobile_money_charge(merchant, amount=5000)
    sums = selectors.balance_sums(merchant=merchant, livemode=False)
    with broker_down():
        ledger_checkpoints_ask(merchant_id=merchant.pk, livemode=False, sums=sums)
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == [
        f"balance checkpoint of {merchant.pk} CDF not enqueued"
    ]
    assert not BalanceCheckpoint.objects.exists()
    assert selectors.balance_get(merchant=merchant, livemode=False)["CDF"] == 5000


@pytest.mark.books_unchecked
def test_the_books_check_finds_a_checkpoint_that_disagrees_with_its_rows(merchant):
    succeeded_mobile_money_charge(merchant, amount=5000)
    BalanceCheckpoint.objects.create(
        merchant=merchant, livemode=False, currency="CDF", epoch=1, total=5001, entries=1
    )
    problems = [problem.problem for problem in ledger_check()]
    assert problems == [
        "available 5001 + pending 0 is not the rows' net 5000",
        "balance checkpoint 1 holds (1, 5001) (rows, sum), its rows add up to (1, 5000)",
    ]


def test_checkpoints_are_never_updated_or_deleted(merchant):
    succeeded_mobile_money_charge(merchant, amount=5000)
    made = checkpoint(merchant)
    with pytest.raises(TypeError):
        BalanceCheckpoint.objects.filter(pk=made.pk).update(total=1)
    with pytest.raises(TypeError):
        made.delete()
    if connection.vendor == "postgresql":
        with pytest.raises(DatabaseError, match="never updated or deleted"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute("UPDATE payments_balancecheckpoint SET total = 1")


# --- Concurrency (PostgreSQL): each side in its own thread, connection and transaction ----------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_checkpoint_waits_for_a_transaction_still_writing_rows(merchant, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0  # as below
    succeeded_mobile_money_charge(merchant, amount=1000)
    written, release, done = threading.Event(), threading.Event(), threading.Event()
    made: list = []

    def writer():
        try:
            with transaction.atomic():
                succeeded_mobile_money_charge(merchant, amount=700)
                written.set()
                release.wait(20)
        finally:
            connection.close()

    def checkpointer():
        try:
            made.append(checkpoint(merchant))
            done.set()
        finally:
            connection.close()

    threads = [threading.Thread(target=writer)]
    threads[0].start()
    assert written.wait(20)
    threads.append(threading.Thread(target=checkpointer))
    threads[1].start()
    assert not done.wait(1.0), "the checkpoint did not wait for the writing transaction"
    release.set()
    for thread in threads:
        thread.join(30)
    assert (made[0].total, made[0].entries) == (1700, 2)  # the row committed meanwhile included
    assert selectors.balance_get(merchant=merchant, livemode=False)["CDF"] == 1700
    assert ledger_check() == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_rows_written_while_checkpoints_are_taken_are_each_counted_once(merchant, settings):
    # The factories override this setting around each payment; overrides from several threads
    # restore one another's values, so the whole test runs with it.
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    stop = threading.Event()
    errors: list = []

    def writer(amount):
        try:
            for _ in range(8):
                succeeded_mobile_money_charge(merchant, amount=amount)
        except Exception as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    def checkpointer():
        try:
            while not stop.is_set():
                checkpoint(merchant)
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    writers = [threading.Thread(target=writer, args=(100 * (i + 1),)) for i in range(4)]
    taking = threading.Thread(target=checkpointer)
    taking.start()
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(120)
    stop.set()
    taking.join(30)
    assert errors == []
    assert plain_sum(merchant) == 8 * (100 + 200 + 300 + 400)
    assert BalanceCheckpoint.objects.count() >= 2  # checkpoints were taken amid the writes
    assert selectors.balance_get(merchant=merchant, livemode=False)["CDF"] == plain_sum(merchant)
    assert ledger_check() == []
