"""Status checks, backoff, timeouts and races of pending charges.

Time is moved with time-machine; nothing sleeps.
"""

import json
import threading
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.db import connection

from payments import tasks
from payments.providers.base import ProviderOutcome
from payments.services import charges
from sandbox.models import SandboxTransaction
from tests.factories import sent_charge
from webhooks.models import Event

T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)
MM = {"amount": 5000, "currency": "CDF", "network": "VODACOM_MPESA"}
SILENT = "+243812345003"  # the sandbox customer who never answers the prompt


@pytest.fixture
def timeouts(settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 3
    settings.MOBILE_MONEY_PROMPT_TIMEOUT = 300
    settings.CARD_PAYMENT_TIMEOUT = 3600
    return settings


def events(merchant):
    return list(Event.objects.filter(merchant=merchant).values_list("type", flat=True))


@pytest.mark.django_db
def test_unanswered_prompt_backs_off_then_fails_with_timeout(merchant, timeouts):
    charge = sent_charge(merchant, phone=SILENT, at=T0)
    assert charge.next_check_at == T0 + timedelta(seconds=3)  # the sandbox's own delay
    waits = []
    with time_machine.travel(charge.next_check_at, tick=False) as clock:
        while True:
            charge = charges.charge_refresh(charge_id=charge.id)
            if charge.status != "pending":
                break
            now = datetime.now(UTC)
            waits.append((charge.next_check_at - now).total_seconds())
            assert events(merchant) == []
            clock.move_to(charge.next_check_at)
    # The backoff grows, and the last wait is cut so the timeout is applied exactly on time.
    assert waits == [10, 20, 30, 60, 120, 57]
    assert charge.status == "failed" and charge.failure_code == "timeout"
    assert charge.finalized_at == T0 + timedelta(seconds=300)
    assert charge.check_count == 7
    assert events(merchant) == ["charge.failed"]
    event = Event.objects.get(merchant=merchant)
    assert event.data["object"]["failure_code"] == "timeout"


@pytest.mark.django_db
def test_prompt_answered_late_but_before_the_timeout_succeeds(merchant, timeouts):
    charge = sent_charge(merchant, phone="+243812345678", at=T0)
    with time_machine.travel(T0 + timedelta(seconds=1), tick=False):
        assert charges.charge_refresh(charge_id=charge.id).status == "pending"
    with time_machine.travel(T0 + timedelta(seconds=299), tick=False):
        assert charges.charge_refresh(charge_id=charge.id).status == "succeeded"


@pytest.mark.django_db
def test_card_payment_not_completed_is_abandoned_after_its_timeout(merchant, timeouts):
    with time_machine.travel(T0, tick=False):
        charge = charges.charge_create(
            merchant=merchant, livemode=False, amount=1999, currency="USD", payment_method="card"
        )
    with time_machine.travel(T0 + timedelta(seconds=3599), tick=False):
        charge = charges.charge_refresh(charge_id=charge.id)
        assert charge.status == "pending"
        assert charge.next_check_at <= T0 + timedelta(seconds=3600)
    with time_machine.travel(T0 + timedelta(seconds=3600), tick=False):
        charge = charges.charge_refresh(charge_id=charge.id)
    assert charge.status == "failed" and charge.failure_code == "abandoned"
    assert charge.next_action is None
    assert events(merchant) == ["charge.failed"]


@pytest.mark.django_db
def test_a_card_page_left_unfinished_is_searched_for_sparingly(merchant, timeouts):
    """Each check of a card payment is a search of the provider's transactions; its result
    comes back by itself (the receipt, the notification), so its own checks are few: at 1, 5,
    15, 30 and 60 minutes (the deadline), not 18 times in the hour."""
    with time_machine.travel(T0, tick=False):
        charge = charges.charge_create(
            merchant=merchant, livemode=False, amount=1999, currency="USD", payment_method="card"
        )
    checks = []
    with time_machine.travel(charge.next_check_at, tick=False) as clock:
        while charge.status == "pending":
            checks.append((datetime.now(UTC) - T0).total_seconds() / 60)
            charge = charges.charge_refresh(charge_id=charge.id)
            if charge.next_check_at:
                clock.move_to(charge.next_check_at)
    assert checks == [1, 5, 15, 30, 60]
    assert (charge.status, charge.failure_code) == ("failed", "abandoned")


@pytest.mark.django_db
def test_a_final_status_never_changes(merchant, timeouts):
    charge = sent_charge(merchant, phone="+243812345678", at=T0)
    with time_machine.travel(T0 + timedelta(seconds=3), tick=False):
        charge = charges.charge_refresh(charge_id=charge.id)
    assert charge.status == "succeeded"
    finalized = (charge.finalized_at, charge.updated_at, charge.check_count)
    for outcome in (
        ProviderOutcome(status="failed", failure_code="provider_error"),
        ProviderOutcome(status="declined", failure_code="insufficient_funds"),
        ProviderOutcome(status="pending"),
        ProviderOutcome(status="succeeded"),
    ):
        charges.charge_apply_outcome(charge_id=charge.id, outcome=outcome)
    with time_machine.travel(T0 + timedelta(days=1), tick=False):
        charges.charge_refresh(charge_id=charge.id)  # past every timeout: still succeeded
    charge.refresh_from_db()
    assert charge.status == "succeeded" and charge.failure_code == ""
    assert (charge.finalized_at, charge.updated_at, charge.check_count) == finalized
    assert events(merchant) == ["charge.succeeded"]


# --- the periodic sweep, on the real broker ---------------------------------------------------


def queued_tasks() -> list[tuple[str, str]]:
    """(task name, args) of every message waiting on the Redis broker's default queue."""
    import redis
    from django.conf import settings

    client = redis.Redis.from_url(settings.REDIS_URL)
    messages = [json.loads(raw) for raw in client.lrange("celery", 0, -1)]
    return sorted((m["headers"]["task"], m["headers"]["argsrepr"]) for m in messages)


@pytest.mark.redis
@pytest.mark.django_db
def test_poll_sweep_enqueues_due_checks_and_resends_unsent_requests(merchant, timeouts):
    from config.celery import app

    due = sent_charge(merchant, phone=SILENT, at=T0)
    later = sent_charge(merchant, phone=SILENT, at=T0)
    with time_machine.travel(T0 + timedelta(seconds=25), tick=False):
        later = charges.charge_refresh(charge_id=later.id)  # next check at T0 + 35 s
    final = sent_charge(merchant, phone="+243812345678", at=T0)
    with time_machine.travel(T0 + timedelta(seconds=3), tick=False):
        assert charges.charge_refresh(charge_id=final.id).status == "succeeded"
    with time_machine.travel(T0, tick=False):
        # Created, but the task that hands it to the operator was lost.
        unsent = charges.charge_create(
            merchant=merchant, livemode=False, phone="+243812345678", **MM
        )
    with time_machine.travel(T0 + timedelta(seconds=25), tick=False):
        fresh = charges.charge_create(
            merchant=merchant, livemode=False, phone="+243812345678", **MM
        )
    app.control.purge()
    with time_machine.travel(T0 + timedelta(seconds=30), tick=False):
        assert tasks.charges_poll_due() == 1
        assert queued_tasks() == sorted(
            [
                ("payments.tasks.charge_refresh", repr((due.id,))),
                ("payments.tasks.charge_request_payment", repr((unsent.id,))),
            ]
        )
        # The sweep moved the due check on, so the next sweep does not enqueue it twice.
        app.control.purge()
        assert tasks.charges_poll_due() == 0
        assert queued_tasks() == [("payments.tasks.charge_request_payment", repr((unsent.id,)))]
    app.control.purge()
    # The re-sent request reaches the operator once, however many times it is delivered
    # (before its deadline).
    with time_machine.travel(T0 + timedelta(seconds=31), tick=False):
        for _ in range(2):
            tasks.charge_request_payment(unsent.id)
    assert SandboxTransaction.objects.get(reference=unsent.id).request_count == 1
    assert not SandboxTransaction.objects.filter(reference=fresh.id).exists()
    app.control.purge()


# --- races (PostgreSQL row locks) -------------------------------------------------------------


def run_together(*calls):
    """Run each call in its own thread (own database connection), released at the same time."""
    barrier = threading.Barrier(len(calls))
    errors = []

    def run(call):
        try:
            barrier.wait(timeout=10)
            call()
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(call,)) for call in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_concurrent_status_checks_settle_once(merchant, settings, attempt):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    charge = charges.charge_create(
        merchant=merchant,
        livemode=False,
        phone="+243971234001",
        **{**MM, "network": "AIRTEL_MONEY"},
    )
    charges.charge_request_payment(charge_id=charge.id)
    run_together(*[lambda: charges.charge_refresh(charge_id=charge.id)] * 4)
    charge.refresh_from_db()
    assert charge.status == "declined" and charge.failure_code == "insufficient_funds"
    assert events(merchant) == ["charge.declined"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("attempt", range(3))
def test_concurrent_outcomes_give_one_final_status_and_one_event(merchant, attempt):
    charge = charges.charge_create(merchant=merchant, livemode=False, phone="+243812345678", **MM)
    outcomes = [
        ProviderOutcome(status="succeeded"),
        ProviderOutcome(status="failed", failure_code="provider_error"),
        ProviderOutcome(status="declined", failure_code="customer_rejected"),
    ]
    run_together(
        *[
            lambda o=o: charges.charge_apply_outcome(charge_id=charge.id, outcome=o)
            for o in outcomes
        ],
        lambda: charges.charge_refresh(charge_id=charge.id),
    )
    charge.refresh_from_db()
    assert charge.status in ("succeeded", "failed", "declined")
    assert events(merchant) == [f"charge.{charge.status}"]
    assert Event.objects.get(merchant=merchant).data["object"]["status"] == charge.status
    expected_code = {"succeeded": "", "failed": "provider_error", "declined": "customer_rejected"}
    assert charge.failure_code == expected_code[charge.status]
