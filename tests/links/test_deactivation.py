"""A deactivated payment link takes its open checkout sessions with it: each expires at once
with its checkout.session.expired event, or, while its customer's attempt is pending, once that
attempt settles (a success completes it). Through the API, the dashboard (test_payment_links_
pages.py) and on PostgreSQL against customers opening or paying a session at the same moment."""

import threading

import pytest
from django.db import connection, transaction
from django.utils import timezone

from checkout import services as checkout
from checkout.models import CheckoutSession
from core.errors import CheckoutSessionNotOpen
from links import services
from links.models import PaymentLink
from payments.models import Charge
from payments.providers.base import ProviderOutcome
from payments.services import charges
from tests.helpers import backends_waiting_on_a_lock, wait_for
from tests.links.factories import make_link, pay_session
from webhooks.models import Event

pytestmark = pytest.mark.django_db


def attempt(session, phone: str = "+243812345678") -> Charge:
    """The session's customer starts paying by mobile money: the prompt is on their phone."""
    return checkout.session_attempt_create(
        session_id=session.id, payment_method="mobile_money", phone=phone, network="VODACOM_MPESA"
    )


def settle(charge: Charge, status: str) -> None:
    charges.charge_apply_outcome(charge_id=charge.id, outcome=ProviderOutcome(status=status))


def expired_events(session) -> list[Event]:
    return list(Event.objects.filter(type="checkout.session.expired", data__object__id=session.id))


def status(session) -> str:
    return CheckoutSession.objects.get(pk=session.id).status


def test_deactivating_through_the_api_expires_the_links_open_sessions(
    api, merchant, django_capture_on_commit_callbacks
):
    link, other = make_link(merchant), make_link(merchant)
    waiting = services.link_open_session(link=link)  # a customer who has not paid yet
    paid = services.link_open_session(link=link)
    pay_session(paid)
    elsewhere = services.link_open_session(link=other)

    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/v1/payment_links/{link.id}", {"active": False}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["active"] is False

    assert status(waiting) == "expired"
    [event] = expired_events(waiting)
    assert (event.data["object"]["status"], event.data["object"]["payment_link"]) == (
        "expired",
        link.id,
    )
    assert api.get(f"/v1/checkout/sessions/{waiting.id}").json()["status"] == "expired"
    assert status(paid) == "complete" and not expired_events(paid)
    assert status(elsewhere) == "open"  # another link's session is not touched

    # Active again, the link opens new sessions; the expired one stays expired.
    with django_capture_on_commit_callbacks(execute=True):
        api.post(f"/v1/payment_links/{link.id}", {"active": True}, format="json")
    assert status(waiting) == "expired" and len(expired_events(waiting)) == 1
    assert services.link_open_session(link=link).status == "open"


@pytest.mark.parametrize("outcome", ["failed", "succeeded"])
def test_a_session_whose_customer_is_paying_expires_once_the_attempt_settles(
    api, merchant, outcome, django_capture_on_commit_callbacks
):
    link = make_link(merchant)
    session = services.link_open_session(link=link)
    charge = attempt(session)

    with django_capture_on_commit_callbacks(execute=True):
        services.link_set_active(link=link, active=False)
    # The payment in flight is not cut off, but no other attempt starts meanwhile.
    session.refresh_from_db()
    assert session.status == "open" and session.expires_at <= timezone.now()
    assert not expired_events(session)
    assert checkout.sessions_expire_due() == 0  # the sweep waits for the attempt too

    settle(charge, outcome)
    if outcome == "succeeded":  # paid before the link closed: kept and counted
        assert status(session) == "complete"
        assert PaymentLink.objects.get(pk=link.id).payments_count == 1
        assert Charge.objects.get(pk=charge.id).late_payment_at is None
        assert not expired_events(session)
        return
    with pytest.raises(CheckoutSessionNotOpen):
        attempt(session)  # the customer may not try again
    assert checkout.sessions_expire_due() == 1
    assert status(session) == "expired" and len(expired_events(session)) == 1


def test_sessions_a_lost_process_left_open_are_cut_short_by_the_sweep(merchant):
    """The deactivation committed but its process was lost before the sessions expired (its
    commit callbacks are not run here): the sweep finds them."""
    link = make_link(merchant)
    session = services.link_open_session(link=link)
    services.link_set_active(link=link, active=False)
    assert status(session) == "open"
    assert checkout.sessions_expire_due() == 1
    assert status(session) == "expired" and len(expired_events(session)) == 1


# --- On PostgreSQL, at the same moment ---------------------------------------------------------


def while_holding(hold, then):
    """`hold()` runs in a transaction of its own thread; once it has, `then()` runs in another,
    and once that one waits on a lock, the first commits. What `then` returned or raised."""
    held, release, outcome, failed = threading.Event(), threading.Event(), [], []

    def holder():
        try:
            with transaction.atomic():
                hold()
                held.set()
                release.wait(timeout=60)
        except Exception as exc:  # noqa: BLE001 - reported below
            failed.append(exc)
            held.set()
        finally:
            connection.close()

    def other():
        try:
            outcome.append(then())
        except Exception as exc:  # noqa: BLE001 - the refusal is what is checked
            outcome.append(exc)
        finally:
            connection.close()

    first, second = threading.Thread(target=holder), threading.Thread(target=other)
    first.start()
    try:
        assert held.wait(timeout=60) and not failed, failed
        second.start()
        wait_for(lambda: not second.is_alive() or backends_waiting_on_a_lock() == 1)
    finally:
        release.set()
        first.join()
    second.join()
    assert not failed, failed
    [result] = outcome
    return result


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_session_opened_while_the_link_is_deactivated_expires_with_it(merchant):
    link = make_link(merchant)
    opened = []
    while_holding(
        lambda: opened.append(services.link_open_session(link=link)),
        lambda: services.link_set_active(link=PaymentLink.objects.get(pk=link.id), active=False),
    )
    [session] = opened
    assert status(session) == "expired" and len(expired_events(session)) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_customer_opening_a_session_while_the_link_is_deactivated_gets_none(merchant):
    link = make_link(merchant)
    shown = PaymentLink.objects.get(pk=link.id)  # the page the customer loaded, still active
    refused = while_holding(
        lambda: services.link_set_active(link=link, active=False),
        lambda: services.link_open_session(link=shown),
    )
    assert isinstance(refused, services.LinkClosed), refused
    assert not CheckoutSession.objects.filter(payment_link=link).exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("outcome", ["failed", "succeeded"])
def test_a_customer_paying_while_the_link_is_deactivated_is_not_cut_off(merchant, outcome):
    link = make_link(merchant)
    session = services.link_open_session(link=link)
    started = []
    while_holding(
        lambda: started.append(attempt(session)),
        lambda: services.link_set_active(link=PaymentLink.objects.get(pk=link.id), active=False),
    )
    [charge] = started
    session.refresh_from_db()
    assert session.status == "open" and session.expires_at <= timezone.now()
    assert Charge.objects.get(pk=charge.id).status == "pending"

    settle(charge, outcome)
    checkout.sessions_expire_due()
    if outcome == "succeeded":
        assert status(session) == "complete" and not expired_events(session)
        assert PaymentLink.objects.get(pk=link.id).payments_count == 1
    else:
        assert status(session) == "expired" and len(expired_events(session)) == 1
