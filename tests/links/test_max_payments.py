"""max_payments is never exceeded: the sessions of a link complete one at a time under the link's
row lock, and a success past the limit expires its session and is given back in full as a late
payment (docs/guides/payment-links.md). On PostgreSQL, with customers paying at the same moment."""

import time

import pytest
from django.db import transaction

from checkout import services as checkout
from checkout.models import CheckoutSession
from links import services
from links.models import PaymentLink
from payments.models import Charge, Refund
from payments.providers.base import ProviderOutcome
from payments.services import charges
from tests.factories import make_session
from tests.helpers import race
from tests.links.factories import make_link, pay_session
from webhooks.models import Event

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def attempts(link: PaymentLink, count: int) -> list[Charge]:
    """`count` customers, each on a session of the link, each with a prompt on their phone."""
    made = []
    for i in range(count):
        session = services.link_open_session(link=link)
        made.append(
            checkout.session_attempt_create(
                session_id=session.id,
                payment_method="mobile_money",
                phone=f"+2438123456{i:02d}",
                network="VODACOM_MPESA",
            )
        )
    return made


def all_pay_at_once(pending: list[Charge]) -> list:
    queue = list(pending)
    return race(
        lambda: charges.charge_apply_outcome(
            charge_id=queue.pop().id, outcome=ProviderOutcome(status="succeeded")
        ),
        len(pending),
    )


@pytest.mark.parametrize(("max_payments", "customers"), [(1, 2), (1, 6), (3, 6)])
def test_customers_paying_at_once_never_exceed_max_payments(merchant, max_payments, customers):
    link = make_link(merchant, max_payments=max_payments)
    pending = attempts(link, customers)
    results = all_pay_at_once(pending)
    assert all(isinstance(r, Charge) and r.status == "succeeded" for r in results), results

    link.refresh_from_db()
    assert link.payments_count == max_payments
    sessions = CheckoutSession.objects.filter(payment_link=link)
    complete = sessions.filter(status="complete")
    assert complete.count() == max_payments
    assert sessions.filter(status="expired").count() == customers - max_payments
    # Every success past the limit is given back in full, once; the accepted ones are kept.
    late = Charge.objects.filter(checkout_session__payment_link=link, late_payment_at__isnull=False)
    assert late.count() == customers - max_payments
    assert set(late.values_list("checkout_session__status", flat=True)) <= {"expired"}
    for charge in late:
        assert [(r.reason, r.amount) for r in Refund.objects.filter(charge=charge)] == [
            ("late_payment", charge.amount)
        ]
    assert not Refund.objects.filter(charge__completed_session__in=complete).exists()
    completed_events = Event.objects.filter(type="checkout.session.completed")
    assert completed_events.count() == max_payments
    assert {e.data["object"]["payment_link"] for e in completed_events} == {link.id}
    # The used-up link opens no more sessions.
    with pytest.raises(services.LinkClosed):
        services.link_open_session(link=link)


def test_a_link_without_max_payments_takes_every_payment(merchant):
    link = make_link(merchant)
    results = all_pay_at_once(attempts(link, 4))
    assert all(isinstance(r, Charge) for r in results), results
    link.refresh_from_db()
    assert link.payments_count == 4
    assert not Charge.objects.filter(late_payment_at__isnull=False).exists()


def test_a_session_without_a_link_is_not_counted(merchant):
    link = make_link(merchant, max_payments=1)
    session = make_session(merchant)
    pay_session(session)
    assert CheckoutSession.objects.get(pk=session.id).status == "complete"
    link.refresh_from_db()
    assert link.payments_count == 0


def test_the_links_row_lock_decides_between_completions_in_flight(merchant):
    """Two completions whose transactions overlap: the second waits for the first to commit and
    then sees the link used up (without the lock both would count the same free place)."""
    link = make_link(merchant, max_payments=1)
    sessions = [services.link_open_session(link=link) for _ in range(2)]

    def complete():
        session = sessions.pop()
        with transaction.atomic():
            answer = services.link_on_session_completing(CheckoutSession, instance=session)
            time.sleep(0.3)  # the transaction stays open while the other one runs
        return answer

    answers = race(complete, 2)
    assert sorted(answers, key=bool) == [None, answers[0] or answers[1]], answers
    assert [a for a in answers if a] and "max_payments" in [a for a in answers if a][0]
    link.refresh_from_db()
    assert link.payments_count == 1
