"""Every statement that takes one charge, refund, payout or webhook delivery by its id reads that
row through the table's primary key, whatever the statistics say.

ANALYZE samples a table: on a table of many settled payments its sample holds no pending one most
of the time, and the planner then takes each partial index of pending rows for empty. A statement
by id whose conditions imply such an index's predicate (the prompt's claim says `status =
'pending'`) was planned on that index as the cheapest path, and read every pending row's entry to
find its own: a millisecond at 1,500 pending, a second at a million, for every claim, check and
delivery, on the day a backlog builds up. The partial indexes now name a condition the statements
by id never state (a check to come, an unsent mobile money prompt, a delivery that carries its
merchant), so the planner cannot take them for a statement by id."""

import re

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext

from payments.providers.base import ProviderOutcome
from payments.services import charges, payouts, refunds
from tests.factories import make_charge, record_event, sandbox_paid, settled_charges
from webhooks import services as webhook_services
from webhooks.models import Delivery

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.books_unchecked,
    pytest.mark.django_db(transaction=True),
]

TABLES = ("payments_charge", "payments_refund", "payments_payout", "webhooks_delivery")
# A WHERE that takes one row by its id (not one that leaves a row out: `NOT (… "id" = …)`).
BY_ID = re.compile(r'(?<!NOT \()"(?:' + "|".join(TABLES) + r')"\."id" = ')


def _history(merchant, url: str) -> None:
    """Settled payments of every kind, then statistics taken with none of them pending."""
    webhook_services.endpoint_set_url(merchant=merchant, livemode=False, url=url)
    settled_charges(merchant, "VODACOM_MPESA", {"succeeded": 40, "timeout": 20})
    paid = [sandbox_paid(make_charge(merchant, amount=20000).id) for _ in range(3)]
    for charge in paid:
        refunds.refund_create(charge=charge, amount=1000)
    for _ in range(20):
        sent = payouts.payout_send(
            payout_id=payouts.payout_create(
                merchant=merchant, livemode=False, amount=1000, currency="CDF",
                phone="+243812345678", network="VODACOM_MPESA",
            ).id
        )  # fmt: skip
        payouts.payout_apply_outcome(payout_id=sent.id, outcome=ProviderOutcome(status="succeeded"))
    for _ in range(40):
        record_event(merchant, url=url)
    Delivery.objects.update(status="succeeded")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE " + ", ".join(TABLES))


def _backlog() -> None:
    """Then a backlog: the same rows pending again, as the statistics do not know."""
    with connection.cursor() as cursor:
        for table in TABLES[:3]:
            cursor.execute(
                f"UPDATE {table} SET status = 'pending', next_check_at = now() + interval '1 hour'"
            )
        cursor.execute("UPDATE webhooks_delivery SET status = 'pending'")


def _plan(sql: str, *, off: tuple[str, ...] = ("seqscan",)) -> str:
    """The plan of `sql` with the planner's `off` methods left aside: a table as small as a
    test's would otherwise be read whole, and which index is read is what is asked."""
    with connection.cursor() as cursor:
        for method in off:
            cursor.execute(f"SET enable_{method} = off")
        try:
            cursor.execute("EXPLAIN " + sql)
            return "\n".join(row[0] for row in cursor.fetchall())
        finally:
            for method in off:
                cursor.execute(f"RESET enable_{method}")


def test_a_payments_statements_by_id_read_its_primary_key(merchant, receiver):
    _history(merchant, receiver.url())
    _backlog()

    with CaptureQueriesContext(connection) as seen:
        charge = make_charge(merchant)
        with override_settings(SANDBOX_MOBILE_MONEY_DELAY=0):
            charges.charge_request_payment(charge_id=charge.id)
            paid = charges.charge_refresh(charge_id=charge.id)
        refund = refunds.refund_create(charge=paid, amount=500)
        refunds.refund_refresh(refund_id=refund.id)
        payout = payouts.payout_create(
            merchant=merchant, livemode=False, amount=500, currency="CDF",
            phone="+243812345678", network="VODACOM_MPESA",
        )  # fmt: skip
        payouts.payout_send(payout_id=payout.id)
        payouts.payout_refresh(payout_id=payout.id)
        for delivery in Delivery.objects.filter(event__data__object__id=charge.id):
            webhook_services.delivery_send(delivery_id=delivery.pk)

    statements = [q["sql"] for q in seen if BY_ID.search(q["sql"])]
    kinds = {table for sql in statements for table in TABLES if f'"{table}"."id" = ' in sql}
    assert kinds == set(TABLES), kinds  # the life of a payment reached every table
    astray = {}
    for sql in statements:
        plan = _plan(sql)
        # The key, or the pattern-ops copy of a text key that Django adds beside it (`…_like`).
        read = re.findall(r"Index (?:Only )?Scan using (\w+)", plan)
        if not all(name.endswith(("_pkey", "_like")) for name in read):
            astray[sql] = plan
    assert not astray, "\n\n".join(f"{sql}\n{plan}" for sql, plan in astray.items())


def test_the_sweeps_read_the_partial_indexes_of_what_they_look_for():
    """What the partial indexes are for: each sweep reads the one of what it looks for (the
    pending rows with a check to come, the unsent prompts), in the order it takes them."""
    with CaptureQueriesContext(connection) as seen:
        charges.charges_poll_due()
        refunds.refunds_poll_due()
        payouts.payouts_poll_due()
        payouts.payouts_send_unsent()

    plans = [
        _plan(q["sql"], off=("seqscan", "sort")) for q in seen if q["sql"].startswith("SELECT")
    ]
    read = {name for plan in plans for name in re.findall(r"Index Scan using (\w+)", plan)}
    assert read >= {
        "charge_check_due_idx",
        "charge_unsent_idx",
        "refund_check_due_idx",
        "payout_check_due_idx",
    }, "\n\n".join(plans)
