"""A refund left pending at a live operator is never failed by guesswork."""

from datetime import UTC, datetime

import pytest

from payments.providers.airtel import AirtelMoney
from payments.providers.base import RefundQuery
from payments.providers.mpesa import VodacomMpesa

QUERY = RefundQuery(
    refund_id="re_x", charge_id="ch_x", amount=5000, currency="CDF",
    provider_reference="", requested_at=datetime(2026, 11, 21, tzinfo=UTC),
)  # fmt: skip


@pytest.mark.parametrize("adapter", [AirtelMoney, VodacomMpesa])
def test_operators_without_refund_enquiry_keep_the_refund_pending_for_staff(adapter):
    outcome = adapter.check_refund(adapter.__new__(adapter), QUERY)
    assert outcome.status == "pending"
    assert "confirm with the operator" in outcome.raw["refund"]
