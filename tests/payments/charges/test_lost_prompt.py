"""A worker killed while it asks the operator for a payment (after claiming the prompt, before
recording the answer) leaves a charge that the status sweep still asks about: it never stays
pending for good. Found by the drill of tests/deploy/test_drill.py, which kills a worker."""

from datetime import timedelta

import pytest
import time_machine
from django.utils import timezone

from payments.models import Charge
from payments.services import charges
from sandbox.providers import SandboxMobileMoney
from tests.factories import make_charge

pytestmark = pytest.mark.django_db


class WorkerKilledMidCall(SandboxMobileMoney):
    """The operator is being asked when the worker's process is killed: nothing after the call
    runs (SystemExit stands for the SIGKILL a test process cannot send itself)."""

    def request_payment(self, payment):
        raise SystemExit("killed while the operator was being asked")


@pytest.fixture
def operator_call_dies(settings):
    settings.PAYMENT_PROVIDERS = {
        **settings.PAYMENT_PROVIDERS,
        "test": {
            **settings.PAYMENT_PROVIDERS["test"],
            "VODACOM_MPESA": f"{__name__}.WorkerKilledMidCall",
        },
    }


def test_a_prompt_lost_with_its_worker_is_asked_about_by_the_status_sweep(
    merchant, operator_call_dies, settings
):
    charge = make_charge(merchant, network="VODACOM_MPESA")
    with pytest.raises(SystemExit):
        charges.charge_request_payment(charge_id=charge.id)
    charge = Charge.objects.get(pk=charge.id)
    assert charge.status == "pending" and charge.provider_requested_at is not None
    # Not before the longest payment request could be over (the operator may still be busy).
    longest = settings.PROVIDER_HTTP_TIMEOUT + settings.MPESA_TIMEOUT
    assert charge.next_check_at is not None
    assert charge.next_check_at >= charge.provider_requested_at + timedelta(seconds=longest)
    assert charges.charges_poll_due() == 0
    with time_machine.travel(charge.next_check_at + timedelta(seconds=1), tick=False):
        assert charges.charges_poll_due() == 1


def test_an_answered_prompt_keeps_the_wait_its_answer_sets(merchant):
    """The sandbox answers `pending` at once: the next check is the first wait, not the bound
    kept for a prompt lost with its worker."""
    charge = make_charge(merchant, network="VODACOM_MPESA")
    before = timezone.now()
    charges.charge_request_payment(charge_id=charge.id)
    charge = Charge.objects.get(pk=charge.id)
    assert charge.status == "pending"
    assert charge.next_check_at <= before + timedelta(seconds=charges.POLL_BACKOFF[0] + 5)
