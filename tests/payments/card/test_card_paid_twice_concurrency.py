"""The other payment of a card charge paid twice, found by several paths at the same moment
(the older tab's reply, a status check, a statement's line): given back exactly once. The
charge's row lock decides, and the extra payment's uniqueness stands behind it."""

from urllib.parse import urlsplit

import pytest
from django.test import Client

from payments.models import ExtraPayment, LedgerEntry, Refund
from payments.providers.base import PaymentQuery
from payments.services import charges, ledger
from sandbox.providers import SandboxCard
from tests.helpers import race
from tests.payments.card.test_card_paid_twice import answer, payment_of, post_reply, two_tabs

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

RACERS = 6


def test_three_paths_finding_the_other_payment_at_once_give_it_back_once(merchant):
    client = Client(enforce_csrf_checks=True)
    charge, old_page, new_page = two_tabs(client, merchant)
    post_reply(client, answer(client, new_page))
    action, late_reply = answer(client, old_page)  # paid; its reply not brought back yet
    other = payment_of(old_page).id
    charge.refresh_from_db()
    assert charge.status == "succeeded" and not charge.refunds.exists()

    def status_check():
        query = PaymentQuery(
            charge_id=charge.id,
            amount=charge.amount,
            currency=charge.currency,
            provider_reference=charge.provider_reference,
            requested_at=charge.created_at,
            attempt=charge.provider_attempt,
        )
        outcome = SandboxCard().check_status(query)
        return charges.charge_apply_outcome(charge_id=charge.id, outcome=outcome)

    paths = [
        lambda: charges.charge_card_return(fields=late_reply),
        status_check,
        lambda: charges.charge_payment_confirmed(
            charge_id=charge.id, reference=other, answer={"statement": "line 7"}
        ),
    ]
    turn = iter(range(RACERS))
    results = race(lambda: paths[next(turn) % len(paths)](), RACERS)
    assert not [r for r in results if isinstance(r, Exception)], results
    [refund] = Refund.objects.filter(charge=charge)
    assert (refund.reason, refund.payment_reference) == ("late_payment", other)
    assert ExtraPayment.objects.get(charge=charge).refund == refund
    assert LedgerEntry.objects.filter(refund=refund, type="late_payment").count() == 1
    assert urlsplit(action).path == "/card/receipt"
    assert ledger.ledger_check() == []
