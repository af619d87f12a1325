"""The migration that starts the ledger writes the rows of the money that already moved, so that
every balance is right from the first deploy."""

import pytest
from django.utils import timezone

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("payments", "0004_merchant_webhook_fields_moved")]
AFTER = [("payments", "0007_ledger_from_history")]


def test_existing_charges_and_refunds_get_their_ledger_rows(migrate_to):
    apps = migrate_to(BEFORE)
    Merchant = apps.get_model("payments", "Merchant")
    Charge = apps.get_model("payments", "Charge")
    Refund = apps.get_model("payments", "Refund")
    merchant = Merchant.objects.create(id="mer_" + "m" * 24, name="Boutique Gombe")
    now = timezone.now()

    def charge(suffix, status, amount, currency="CDF", livemode=False, **extra):
        return Charge.objects.create(
            id="ch_" + suffix * 24,
            merchant=merchant,
            livemode=livemode,
            amount=amount,
            currency=currency,
            payment_method="mobile_money",
            phone="+243812345678",
            network="VODACOM_MPESA",
            status=status,
            finalized_at=now if status != "pending" else None,
            **extra,
        )

    paid = charge("a", "succeeded", 25000, amount_refunded=5000)
    live = charge("b", "succeeded", 9900, currency="USD", livemode=True)
    charge("c", "failed", 7000)
    late = charge("d", "failed", 3000, late_payment_at=now, amount_refunded=3000)
    charge("e", "pending", 1000)
    kept = Refund.objects.create(
        id="re_" + "a" * 24,
        charge=paid,
        merchant=merchant,
        livemode=False,
        amount=5000,
        currency="CDF",
        status="succeeded",
    )
    failed = Refund.objects.create(
        id="re_" + "b" * 24,
        charge=paid,
        merchant=merchant,
        livemode=False,
        amount=2000,
        currency="CDF",
        status="failed",
    )
    late_refund = Refund.objects.create(
        id="re_" + "c" * 24,
        charge=late,
        merchant=merchant,
        livemode=False,
        amount=3000,
        currency="CDF",
        status="pending",
        reason="late_payment",
    )

    Entry = migrate_to(AFTER).get_model("payments", "LedgerEntry")
    written = sorted(Entry.objects.values_list("source", "type", "amount", "livemode", "currency"))
    assert written == sorted(
        [
            (paid.id, "charge", 25000, False, "CDF"),
            (live.id, "charge", 9900, True, "USD"),
            (late.id, "late_payment", 3000, False, "CDF"),
            (kept.id, "refund", -5000, False, "CDF"),
            (failed.id, "refund", -2000, False, "CDF"),
            (failed.id, "refund_failure", 2000, False, "CDF"),
            (late_refund.id, "refund", -3000, False, "CDF"),
        ]
    )
    assert all(e.id.startswith("txn_") for e in Entry.objects.all())
    assert Entry.objects.get(source=kept.id).charge_id == paid.id

    from django.db.migrations.loader import MigrationLoader

    from payments.services.ledger import ledger_check

    # The books as today's code checks them, with the migrations since (balance checkpoints: the
    # rows written here are of epoch 0, before any checkpoint).
    migrate_to(MigrationLoader(None, ignore_no_migrations=True).graph.leaf_nodes())
    assert ledger_check() == []
