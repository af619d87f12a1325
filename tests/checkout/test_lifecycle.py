"""The session state machine: complete once, expire at expires_at, one success per session."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from checkout import services
from checkout.models import CheckoutSession
from checkout.tasks import sessions_expire_due
from core.errors import CheckoutSessionNotOpen
from payments.models import Charge
from tests.factories import make_session, settle
from tests.helpers import race
from webhooks.models import Event

MM = {"payment_method": "mobile_money", "phone": "+243812345678", "network": "VODACOM_MPESA"}


@pytest.mark.django_db
def test_success_completes_the_session_once_and_refuses_new_attempts(merchant):
    session = make_session(merchant)
    charge = services.session_attempt_create(session_id=session.id, **MM)
    assert charge.checkout_session_id == session.id and charge.amount == session.amount
    settle(charge, "succeeded")
    session.refresh_from_db()
    assert session.status == "complete" and session.succeeded_charge_id == charge.id
    completed = Event.objects.filter(type="checkout.session.completed")
    assert [e.data["object"]["charge"] for e in completed] == [charge.id]
    with pytest.raises(CheckoutSessionNotOpen):
        services.session_attempt_create(session_id=session.id, **MM)
    with pytest.raises(CheckoutSessionNotOpen):
        services.session_expire(session=session)


@pytest.mark.django_db
def test_a_failed_attempt_leaves_the_session_open_for_another(merchant):
    session = make_session(merchant)
    first = services.session_attempt_create(session_id=session.id, **MM)
    with pytest.raises(services.AttemptInProgress) as exc:
        services.session_attempt_create(session_id=session.id, **MM)
    assert exc.value.charge.id == first.id
    settle(first, "declined", "insufficient_funds")
    session.refresh_from_db()
    assert session.status == "open"
    second = services.session_attempt_create(session_id=session.id, **MM)
    settle(second, "succeeded")
    session.refresh_from_db()
    assert session.status == "complete" and session.succeeded_charge_id == second.id


@pytest.mark.django_db
def test_session_expires_at_expires_at_through_the_sweep(merchant):
    start = timezone.now()
    with time_machine.travel(start, tick=False) as traveller:
        session = make_session(merchant, expires_in=1800)
        traveller.shift(timedelta(seconds=1799))
        assert sessions_expire_due() == 0
        traveller.shift(timedelta(seconds=1))
        with pytest.raises(CheckoutSessionNotOpen):
            services.session_attempt_create(session_id=session.id, **MM)
        assert sessions_expire_due() == 1
        assert sessions_expire_due() == 0
    session.refresh_from_db()
    assert session.status == "expired"
    assert Event.objects.filter(type="checkout.session.expired").count() == 1


@pytest.mark.django_db
def test_a_pending_attempt_holds_expiry_until_it_settles(merchant):
    start = timezone.now()
    with time_machine.travel(start, tick=False) as traveller:
        session = make_session(merchant, expires_in=1800)
        traveller.shift(timedelta(seconds=1700))
        charge = services.session_attempt_create(session_id=session.id, **MM)
        traveller.shift(timedelta(seconds=200))
        assert sessions_expire_due() == 0
        settle(charge, "succeeded")
    session.refresh_from_db()
    assert session.status == "complete"


@pytest.mark.django_db
def test_a_pending_attempt_that_fails_after_expiry_lets_the_session_expire(merchant):
    start = timezone.now()
    with time_machine.travel(start, tick=False) as traveller:
        session = make_session(merchant, expires_in=1800)
        traveller.shift(timedelta(seconds=1790))
        charge = services.session_attempt_create(session_id=session.id, **MM)
        traveller.shift(timedelta(seconds=60))
        assert sessions_expire_due() == 0
        settle(charge, "failed", "timeout")
        assert sessions_expire_due() == 1
    assert CheckoutSession.objects.get(pk=session.id).status == "expired"


@pytest.mark.django_db
def test_success_redirect_replaces_the_placeholder_and_keeps_the_query(merchant):
    session = make_session(
        merchant, success_url="https://shop.example.cd/ok?order=42&cs={CHECKOUT_SESSION_ID}"
    )
    charge = services.session_attempt_create(session_id=session.id, **MM)
    settle(charge, "succeeded")
    charge.refresh_from_db()
    url = services.success_redirect_url(session, charge)
    assert url == (
        f"https://shop.example.cd/ok?order=42&cs={session.id}&session_id={session.id}"
        f"&transaction_id={charge.id}&status=succeeded"
    )
    assert services.cancel_redirect_url(session) == (
        f"https://shop.example.cd/panier?session_id={session.id}&status=canceled"
    )


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_tabs_racing_start_only_one_attempt(merchant):
    session = make_session(merchant)
    results = race(lambda: services.session_attempt_create(session_id=session.id, **MM), 4)
    charges = [r for r in results if isinstance(r, Charge)]
    refused = [r for r in results if isinstance(r, services.AttemptInProgress)]
    assert len(charges) == 1 and len(refused) == 3, results
    assert Charge.objects.filter(checkout_session=session).count() == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_only_one_charge_of_a_session_ever_succeeds(merchant):
    session = make_session(merchant)
    first = services.session_attempt_create(session_id=session.id, **MM)
    settle(first, "declined", "customer_rejected")
    second = services.session_attempt_create(session_id=session.id, **MM)
    # The operator's callback and our status poll answer at the same moment.
    results = race(lambda: settle(second, "succeeded"))
    assert all(isinstance(r, Charge) for r in results), results
    racers = race(lambda: services.session_attempt_create(session_id=session.id, **MM))
    assert all(isinstance(r, CheckoutSessionNotOpen) for r in racers), racers
    session.refresh_from_db()
    assert session.status == "complete" and session.succeeded_charge_id == second.id
    assert Charge.objects.filter(checkout_session=session, status="succeeded").count() == 1
    assert Event.objects.filter(type="checkout.session.completed").count() == 1
