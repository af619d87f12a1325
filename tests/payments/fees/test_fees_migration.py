"""The fees' migrations keep the money that already moved as it was: rows written before read fee
0, available from their creation, and the balance is unchanged. On PostgreSQL the new columns
are changes of the catalogue only (no rewrite of the ledger), and the fee check is validated after
being added NOT VALID (migration 0026)."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from payments import selectors
from payments.models import LedgerEntry
from payments.representations import balance_transaction_repr
from payments.services.ledger import ledger_check

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("payments", "0024_extra_payment_checks")]


def test_rows_written_before_fees_are_fee_zero_and_available_from_their_creation(migrate_to):
    apps = migrate_to(BEFORE)
    Merchant = apps.get_model("payments", "Merchant")
    Charge = apps.get_model("payments", "Charge")
    Entry = apps.get_model("payments", "LedgerEntry")
    merchant = Merchant.objects.create(id="mer_" + "f" * 24, name="Boutique Limete")
    now = timezone.now()
    charge = Charge.objects.create(
        id="ch_" + "f" * 24,
        merchant=merchant,
        livemode=False,
        amount=25000,
        currency="CDF",
        payment_method="mobile_money",
        phone="+243812345678",
        network="VODACOM_MPESA",
        status="succeeded",
        finalized_at=now,
    )
    Entry.objects.create(
        id="txn_" + "f" * 24,
        merchant=merchant,
        livemode=False,
        currency="CDF",
        type="charge",
        amount=25000,
        source=charge.id,
        charge=charge,
        created_at=now,
    )
    # Forward to the latest migrations: the books' check reads every table of today.
    executor = MigrationExecutor(connection)
    migrate_to(executor.loader.graph.leaf_nodes())

    entry = LedgerEntry.objects.get(pk="txn_" + "f" * 24)
    assert (entry.fee, entry.available_on) == (0, None)
    shown = balance_transaction_repr(entry)
    assert (shown["fee"], shown["net"], shown["fee_details"]) == (0, 25000, [])
    assert shown["available_on"] == shown["created_at"]
    sums = selectors.balance_sums(merchant=merchant.pk, livemode=False)["CDF"]
    assert (sums.available, sums.pending) == (25000, 0)
    assert ledger_check() == []
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT convalidated FROM pg_constraint WHERE conname = 'ledger_fee_within_amount'"
            )
            assert cursor.fetchone() == (True,)
