"""The charge and refund state machines, in one place.

A charge goes pending → succeeded | failed | declined, once; a final status never changes. A
success reported after a charge failed (or that its checkout session cannot accept) leaves the
status as it is and is refunded in full instead (services.charges.charge_late_payment).
A refund goes pending → succeeded | failed, once; so does a payout; a settlement goes pending
→ in_transit → paid | failed, once. Their status changes in
one place, services.movements.movement_apply_outcome, which checks every move here.
"""

from collections.abc import Mapping

from payments.models import ChargeStatus, PayoutStatus, RefundStatus, SettlementStatus

CHARGE_TRANSITIONS: dict[str, frozenset[str]] = {
    ChargeStatus.PENDING: frozenset(
        {ChargeStatus.SUCCEEDED, ChargeStatus.FAILED, ChargeStatus.DECLINED}
    ),
}
CHARGE_FINAL = frozenset({ChargeStatus.SUCCEEDED, ChargeStatus.FAILED, ChargeStatus.DECLINED})

REFUND_TRANSITIONS: dict[str, frozenset[str]] = {
    RefundStatus.PENDING: frozenset({RefundStatus.SUCCEEDED, RefundStatus.FAILED}),
}
REFUND_FINAL = frozenset({RefundStatus.SUCCEEDED, RefundStatus.FAILED})


PAYOUT_TRANSITIONS: dict[str, frozenset[str]] = {
    PayoutStatus.PENDING: frozenset({PayoutStatus.SUCCEEDED, PayoutStatus.FAILED}),
}
PAYOUT_FINAL = frozenset({PayoutStatus.SUCCEEDED, PayoutStatus.FAILED})

# A settlement is handed on (to the operator, or in a bank transfer file) before it is paid.
SETTLEMENT_TRANSITIONS: dict[str, frozenset[str]] = {
    SettlementStatus.PENDING: frozenset(
        {SettlementStatus.IN_TRANSIT, SettlementStatus.PAID, SettlementStatus.FAILED}
    ),
    SettlementStatus.IN_TRANSIT: frozenset({SettlementStatus.PAID, SettlementStatus.FAILED}),
}
SETTLEMENT_FINAL = frozenset({SettlementStatus.PAID, SettlementStatus.FAILED})


class InvalidTransition(Exception):
    pass


def check_transition(
    name: str, transitions: Mapping[str, frozenset[str]], current: str, new: str
) -> None:
    """Raise InvalidTransition unless a `name` (charge, refund, payout) may go from current to
    new by its transitions."""
    if new not in transitions.get(current, frozenset()):
        raise InvalidTransition(f"{name} cannot go from {current} to {new}")
