"""`manage.py checkledger` on a service taking payments: each charge writes its status and its
ledger row in one transaction, so the books are right at every moment, and the check run
meanwhile must find nothing (it reads one snapshot of them)."""

import io
import threading
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection

from payments.models import LedgerEntry
from tests.factories import make_charge, settle

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_checkledger_finds_nothing_wrong_while_payments_are_taken(merchant):
    pending = [make_charge(merchant, amount=1000) for _ in range(300)]
    started = threading.Event()

    def take_payments():
        try:
            for charge in pending:
                settle(charge, "succeeded")
                started.set()
        finally:
            connection.close()

    writer = threading.Thread(target=take_payments)
    writer.start()
    checks, alarms = 0, []
    try:
        assert started.wait(60)
        bound = time.monotonic() + 120  # a bound on the loop, not a measure
        while writer.is_alive() and time.monotonic() < bound:
            try:
                call_command("checkledger", stdout=io.StringIO(), stderr=io.StringIO())
            except CommandError as exc:
                alarms.append(str(exc))
            checks += 1
    finally:
        writer.join()
    assert checks > 0 and alarms == []
    assert LedgerEntry.objects.count() == 300
    call_command("checkledger", stdout=io.StringIO(), stderr=io.StringIO())
