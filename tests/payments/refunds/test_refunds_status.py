"""Refund statuses: pending refunds settled by the status check, failures that free their amount,
and the refund.* events written with each change."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from payments import tasks
from payments.models import Charge, Refund
from payments.providers.base import ProviderOutcome, RefundRequest
from payments.representations import refund_repr
from payments.services import provider_calls, refunds
from sandbox.models import SandboxTransaction
from tests.factories import succeeded_card_charge, succeeded_mobile_money_charge
from tests.helpers import refund_events, set_webhook_url

pytestmark = pytest.mark.django_db


def test_failed_sandbox_refund_frees_its_amount(api, merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    response = api.post(
        f"/v1/charges/{charge.id}/refunds",
        {"amount": 4000, "metadata": {"sandbox_refund": "fail"}},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "failed"
    assert body["failure_code"] == "provider_error" and body["failure_message"]
    assert body["metadata"] == {"sandbox_refund": "fail"}
    charge.refresh_from_db()
    assert charge.amount_refunded == 0 and charge.status == "succeeded"

    (event,) = refund_events()
    assert event.type == "refund.failed" and event.data["object"] == body

    full = api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json").json()
    assert full["status"] == "succeeded" and full["amount"] == 10000


def test_succeeded_refund_event_goes_to_the_charge_callback_url(merchant):
    set_webhook_url(merchant, "https://shop.example.cd/hooks")
    charge = succeeded_card_charge(merchant, callback_url="https://shop.example.cd/order/7")
    refund = refunds.refund_create(charge=charge, amount=999, reason="fraudulent")
    (event,) = refund_events()
    assert event.type == "refund.succeeded"
    assert event.merchant_id == merchant.id and event.livemode is False
    assert event.destination_url == "https://shop.example.cd/order/7"
    assert event.data == {"object": refund_repr(refund)}


def test_refund_event_goes_to_the_merchant_default_without_callback_url(merchant):
    set_webhook_url(merchant, "https://shop.example.cd/hooks")
    charge = succeeded_mobile_money_charge(merchant)
    refunds.refund_create(charge=charge)
    (event,) = refund_events()
    assert event.destination_url == "https://shop.example.cd/hooks"


def test_pending_refund_reserves_its_amount_and_succeeds_at_the_status_check(api, merchant):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    with time_machine.travel(timezone.now(), tick=False) as clock:
        body = api.post(
            f"/v1/charges/{charge.id}/refunds",
            {"amount": 6000, "metadata": {"sandbox_refund": "pending"}},
            format="json",
        ).json()
        assert body["status"] == "pending"
        assert refund_events() == []
        # Reserved: what remains refundable excludes the pending refund.
        assert api.get(f"/v1/charges/{charge.id}").json()["amount_refunded"] == 6000
        too_much = api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 5000}, format="json")
        assert too_much.json()["error"]["code"] == "amount_exceeds_refundable"

        # Asked too early, the operator has not answered yet.
        assert refunds.refund_refresh(refund_id=body["id"]).status == "pending"
        clock.shift(timedelta(seconds=5))
        refund = refunds.refund_refresh(refund_id=body["id"])
    assert refund.status == "succeeded"
    assert api.get(f"/v1/refunds/{body['id']}").json()["status"] == "succeeded"
    assert Charge.objects.get(pk=charge.id).amount_refunded == 6000
    (event,) = refund_events(body["id"])
    assert event.type == "refund.succeeded" and event.data["object"]["status"] == "succeeded"
    # A later answer changes nothing and writes no second event.
    refunds.refund_refresh(refund_id=body["id"])
    assert len(refund_events(body["id"])) == 1


def test_pending_refund_that_fails_later_frees_its_amount(api, merchant, settings):
    settings.SANDBOX_MOBILE_MONEY_DELAY = 0
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    body = api.post(
        f"/v1/charges/{charge.id}/refunds",
        {"metadata": {"sandbox_refund": "pending_fail"}},
        format="json",
    ).json()
    assert body["status"] == "pending" and body["amount"] == 10000
    assert (
        api.post(f"/v1/charges/{charge.id}/refunds", {}, format="json").json()["error"]["code"]
        == "charge_not_refundable"
    )

    refund = refunds.refund_refresh(refund_id=body["id"])
    assert refund.status == "failed" and refund.failure_code == "provider_error"
    assert Charge.objects.get(pk=charge.id).amount_refunded == 0
    assert [e.type for e in refund_events(body["id"])] == ["refund.failed"]
    again = api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 10000}, format="json")
    assert again.status_code == 201 and again.json()["status"] == "succeeded"


def test_the_sweep_checks_due_pending_refunds(merchant, eager_tasks):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    with time_machine.travel(timezone.now(), tick=False) as clock:
        waiting = refunds.refund_create(
            charge=charge, amount=2000, metadata={"sandbox_refund": "pending"}
        )
        failing = refunds.refund_create(
            charge=charge, amount=3000, metadata={"sandbox_refund": "pending_fail"}
        )
        assert tasks.refunds_poll_due() == 0  # not due yet
        clock.shift(timedelta(seconds=5))
        assert tasks.refunds_poll_due() == 2
        assert tasks.refunds_poll_due() == 0
    waiting.refresh_from_db()
    failing.refresh_from_db()
    assert (waiting.status, failing.status) == ("succeeded", "failed")
    assert waiting.next_check_at is None and failing.next_check_at is None
    assert Charge.objects.get(pk=charge.id).amount_refunded == 2000


def test_a_refund_never_handed_to_the_provider_fails_at_its_check(merchant, eager_tasks):
    """The request died after reserving: the poller asks the operator, who has no record of it."""
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    with time_machine.travel(timezone.now(), tick=False) as clock:
        reserved = refunds._refund_reserve(
            charge_id=charge.id, amount=10000, reason="", metadata={}
        )
        assert Charge.objects.get(pk=charge.id).amount_refunded == 10000
        clock.shift(timedelta(seconds=refunds.REFUND_CHECK_GRACE - 1))
        assert tasks.refunds_poll_due() == 0  # its request may still be under way
        clock.shift(timedelta(seconds=2))
        assert tasks.refunds_poll_due() == 1
    reserved.refresh_from_db()
    assert reserved.status == "failed"
    assert Charge.objects.get(pk=charge.id).amount_refunded == 0
    assert not SandboxTransaction.objects.filter(kind="refund").exists()


def test_unreachable_provider_keeps_the_refund_pending_until_the_check(api, merchant, settings):
    charge = succeeded_mobile_money_charge(merchant, amount=10000)
    settings.PAYMENT_PROVIDERS = {
        **settings.PAYMENT_PROVIDERS,
        "test": {
            **settings.PAYMENT_PROVIDERS["test"],
            "VODACOM_MPESA": "tests.fakes.operators.UnreachableRefundsOperator",
        },
    }
    response = api.post(f"/v1/charges/{charge.id}/refunds", {"amount": 5000}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "pending"
    refund = Refund.objects.get(pk=body["id"])
    assert refund.provider_raw[-1]["error"].startswith("connection refused")
    assert refund.next_check_at > timezone.now()
    assert Charge.objects.get(pk=charge.id).amount_refunded == 5000
    # The operator never got it, so its status check answers that it has no such refund.
    refund = refunds.refund_refresh(refund_id=body["id"])
    assert refund.status == "failed"
    assert refund.failure_message == "The operator has no record of this refund."
    assert Charge.objects.get(pk=charge.id).amount_refunded == 0


def test_outcome_rules_of_the_state_machine(merchant):
    charge = succeeded_card_charge(merchant, amount=5000)
    refund = refunds.refund_create(
        charge=charge, amount=1000, metadata={"sandbox_refund": "pending"}
    )
    # A provider's "declined" is a failed refund; a failure with no code still says what happened.
    declined = refunds.refund_apply_outcome(
        refund_id=refund.id, outcome=ProviderOutcome(status="declined")
    )
    assert declined.status == "failed" and declined.failure_code == "provider_error"
    # Final: a contradicting later answer is kept for staff but changes nothing.
    after = refunds.refund_apply_outcome(
        refund_id=refund.id,
        outcome=ProviderOutcome(status="succeeded", raw={"late": "SUCCESS"}),
    )
    assert after.status == "failed" and after.provider_raw[-1]["late"] == "SUCCESS"
    assert Charge.objects.get(pk=charge.id).amount_refunded == 0
    assert len(refund_events(refund.id)) == 1


def test_repeated_request_for_one_refund_is_not_paid_twice(merchant):
    charge = succeeded_card_charge(merchant, amount=5000)
    refund = refunds.refund_create(charge=charge, amount=1000)
    provider = provider_calls.provider_for(charge)
    again = provider.refund(
        RefundRequest(
            refund_id=refund.id,
            charge_id=charge.id,
            amount=1000,
            charge_amount=5000,
            currency="USD",
            provider_reference=charge.provider_reference,
        )
    )
    assert again.status == "succeeded"
    record = SandboxTransaction.objects.get(kind="refund", reference=refund.id)
    assert record.request_count == 2 and record.amount == 1000
