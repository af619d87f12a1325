"""The checkout session state machine: open → complete (a charge of it succeeded) | expired (its
time is up, or the merchant expired it), once. checkout.services._session_transition is the one
place that applies it."""

from checkout.models import SessionStatus

SESSION_TRANSITIONS: dict[str, frozenset[str]] = {
    SessionStatus.OPEN: frozenset({SessionStatus.COMPLETE, SessionStatus.EXPIRED}),
}
# The event each move records.
SESSION_EVENTS = {
    SessionStatus.COMPLETE: "checkout.session.completed",
    SessionStatus.EXPIRED: "checkout.session.expired",
}


def session_can_move(current: str, new: str) -> bool:
    return new in SESSION_TRANSITIONS.get(current, frozenset())
