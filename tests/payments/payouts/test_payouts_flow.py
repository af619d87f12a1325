"""A payout through the sandbox operator, by the same path a live one takes: sent once by a
worker, asked about until the operator answers, settled once; a failed payout gives its amount
back; answers that say nothing leave it pending."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from payments.models import LedgerEntry, Payout
from payments.providers.base import ProviderOutcome
from payments.services import payouts as payout_services
from payments.services.ledger import ledger_check
from tests.factories import succeeded_mobile_money_charge
from webhooks.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def funded(merchant):
    succeeded_mobile_money_charge(merchant, amount=50000)
    return merchant


def create(merchant, phone="+243812345678", amount=5000, **extra) -> Payout:
    return payout_services.payout_create(
        merchant=merchant,
        livemode=False,
        amount=amount,
        currency="CDF",
        phone=phone,
        network="VODACOM_MPESA",
        **extra,
    )


def settle(payout: Payout) -> Payout:
    payout_services.payout_send(payout_id=payout.id)
    return payout_services.payout_refresh(payout_id=payout.id)


def ledger(payout: Payout) -> list[tuple[str, int]]:
    return list(
        LedgerEntry.objects.filter(source=payout.id)
        .order_by("created_at", "id")
        .values_list("type", "amount")
    )


def events(payout: Payout) -> list[str]:
    return list(Event.objects.filter(data__object__id=payout.id).values_list("type", flat=True))


@pytest.mark.parametrize(
    "phone, status, failure_code",
    [
        ("+243812345678", "succeeded", None),
        ("+243812345001", "failed", "recipient_invalid"),
        ("+243812345004", "failed", "provider_error"),
    ],
)
def test_each_sandbox_outcome(funded, settings, api, phone, status, failure_code):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    payout = settle(create(funded, phone=phone))
    assert (payout.status, payout.failure_code or None) == (status, failure_code)
    assert payout.provider_reference.startswith("sbx_")
    assert events(payout) == [f"payout.{status}"]
    event = Event.objects.get(data__object__id=payout.id)
    assert event.data["object"] == api.get(f"/v1/payouts/{payout.id}").json()
    if status == "failed":
        assert ledger(payout) == [("payout", -5000), ("payout_failure", 5000)]
        assert api.get("/v1/balance").json()["available"][0]["amount"] == 50000
    else:
        assert ledger(payout) == [("payout", -5000)]
        assert api.get("/v1/balance").json()["available"][0]["amount"] == 45000
    assert ledger_check() == []


def test_the_operator_is_called_at_most_once(funded, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 60
    payout = create(funded)
    first = payout_services.payout_send(payout_id=payout.id)
    sent_at = first.provider_requested_at
    assert first.status == "pending" and sent_at is not None
    again = payout_services.payout_send(payout_id=payout.id)  # the task delivered twice
    assert again.provider_requested_at == sent_at
    sends = [raw for raw in again.provider_raw if raw.get("sandbox") == "payout sent"]
    assert len(sends) == 1


def test_the_status_is_asked_until_the_operator_answers(funded, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 30
    payout = payout_services.payout_send(payout_id=create(funded).id)
    payout = payout_services.payout_refresh(payout_id=payout.id)
    assert payout.status == "pending" and payout.next_check_at is not None
    with time_machine.travel(timezone.now() + timedelta(seconds=31)):
        payout = payout_services.payout_refresh(payout_id=payout.id)
    assert payout.status == "succeeded" and payout.next_check_at is None


def test_a_final_payout_never_changes_and_writes_nothing_more(funded, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    payout = settle(create(funded, phone="+243812345001"))
    for status in ("succeeded", "failed"):
        payout_services.payout_apply_outcome(
            payout_id=payout.id, outcome=ProviderOutcome(status=status)
        )
    payout.refresh_from_db()
    assert payout.status == "failed"
    assert ledger(payout) == [("payout", -5000), ("payout_failure", 5000)]
    assert events(payout) == ["payout.failed"]


def test_answers_that_say_nothing_leave_it_pending_then_staff_decide(funded, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    payout = payout_services.payout_send(payout_id=create(funded).id)
    silent = ProviderOutcome(status="pending", raw={"error": "HTTP 503"})
    payout = payout_services.payout_apply_outcome(payout_id=payout.id, outcome=silent)
    assert payout.status == "pending" and payout.next_check_at is not None
    later = timezone.now() + timedelta(seconds=settings.RECONCILIATION_WINDOW + 1)
    with time_machine.travel(later):
        payout = payout_services.payout_apply_outcome(payout_id=payout.id, outcome=silent)
    assert payout.status == "pending" and payout.next_check_at is None  # for staff now
    payout_services.payout_resolve(payout_id=payout.id, succeeded=False, staff="amani")
    payout.refresh_from_db()
    assert (payout.status, payout.failure_code) == ("failed", "provider_error")
    assert ledger(payout) == [("payout", -5000), ("payout_failure", 5000)]
    assert payout.provider_raw[-1]["resolved_by"] == "amani"


def test_the_sweep_sends_payouts_the_broker_never_delivered(funded, settings, eager_tasks):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    payout = create(funded)
    assert payout_services.payouts_send_unsent() == 0  # not yet: its task may still come
    later = timezone.now() + timedelta(seconds=payout_services.PAYOUT_SEND_GRACE + 1)
    with time_machine.travel(later):
        assert payout_services.payouts_send_unsent() == 1
        payout.refresh_from_db()
        assert payout.provider_requested_at is not None
        assert payout_services.payouts_poll_due() == 1
    payout.refresh_from_db()
    assert payout.status == "succeeded"


def test_a_payout_event_is_resent_to_its_callback_url(funded, settings, api):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    payout = settle(create(funded, callback_url="https://shop.example.cd/payouts/7"))
    event = Event.objects.get(data__object__id=payout.id)
    response = api.post(f"/v1/events/{event.id}/resend")
    assert response.status_code == 200, response.content
    assert response.json()["url"] == "https://shop.example.cd/payouts/7"


def test_staff_cannot_settle_a_payout_the_operator_is_still_asked_about(funded, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 60  # the sandbox operator has not answered yet
    unsent = create(funded)
    assert (
        payout_services.payout_resolve(payout_id=unsent.id, succeeded=True, staff="amani") is None
    )
    payout = payout_services.payout_send(payout_id=unsent.id)
    assert payout.status == "pending" and payout.next_check_at is not None  # still asked about
    assert (
        payout_services.payout_resolve(payout_id=payout.id, succeeded=False, staff="amani") is None
    )
    payout.refresh_from_db()
    assert (payout.status, payout.next_check_at is not None) == ("pending", True)
    assert ledger(payout) == [("payout", -5000)]
    assert events(payout) == []
