"""The charge and refund state machines, in one place.

A charge goes pending → succeeded | failed | declined, once; a final status never changes. A
success reported after a charge failed (or that its checkout session cannot accept) leaves the
status as it is and is refunded in full instead (services.charges.charge_late_payment).
A refund goes pending → succeeded | failed, once; so does a payout.
"""

from payments.models import ChargeStatus, PayoutStatus, RefundStatus

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


class InvalidTransition(Exception):
    pass


def charge_can_move(current: str, new: str) -> bool:
    return new in CHARGE_TRANSITIONS.get(current, frozenset())


def check_charge_transition(current: str, new: str) -> None:
    if not charge_can_move(current, new):
        raise InvalidTransition(f"charge cannot go from {current} to {new}")


def refund_can_move(current: str, new: str) -> bool:
    return new in REFUND_TRANSITIONS.get(current, frozenset())


def check_refund_transition(current: str, new: str) -> None:
    if not refund_can_move(current, new):
        raise InvalidTransition(f"refund cannot go from {current} to {new}")


def check_payout_transition(current: str, new: str) -> None:
    if new not in PAYOUT_TRANSITIONS.get(current, frozenset()):
        raise InvalidTransition(f"payout cannot go from {current} to {new}")
