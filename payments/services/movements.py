"""The lifecycle every movement of money shares (a charge, a refund, a payout): the one place
their status changes, movement_apply_outcome, driven by a description of each kind (Kind).

Every answer about a movement (its operator's, or staff settling it) is applied in one
transaction, under the movement's row lock:
  1. the answer is kept for staff (provider_calls.answer_record), and the counter the caller
     names (check_count for a status check, a charge's reconcile_count) goes up by one, in the
     database;
  2. a final status never changes: an answer on a final movement is the kind's to handle
     (Kind.after_the_end: a charge's late payment; a disagreement logged for staff otherwise);
  3. a pending answer: once the kind's deadline has passed it becomes the kind's deadline
     failure (a charge failed by our clock); else the next check is set by the kind's backoff,
     never after Kind.checks_until, and not at all once that is past (a payout: staff decide);
  4. a step on the way (a settlement in transit): the transition is checked, the status and
     updated_at written, nothing else;
  5. a final answer: the transition is checked (payments.state), the status and failure,
     finalized_at and updated_at written, the kind's ledger row for that status written, and
     its event sent (core.events) with the change.
A new kind of movement (a settlement) is a new Kind, not a copy of this.
"""

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db import models, transaction
from django.db.models import F
from django.dispatch import Signal
from django.utils import timezone

from payments import state
from payments.providers.base import OutcomeStatus, ProviderOutcome
from payments.services.ledger import ledger_record
from payments.services.provider_calls import PENDING, answer_record

logger = logging.getLogger("payments.services")

Movement = Any  # a Charge, Refund or Payout: a row with the fields every kind has
SUCCEEDED: OutcomeStatus = "succeeded"  # every kind's one final status that is not a failure


def _row_lock(kind: "Kind", pk: str) -> Movement:
    return kind.model.objects.select_for_update().get(pk=pk)


def _disagreement_logged(
    kind: "Kind", row: Movement, outcome: ProviderOutcome, fields: list[str], now: datetime
) -> Movement:
    """A final movement keeps its status: an answer that says otherwise is kept and logged, for
    staff to look into."""
    said = kind.aliases.get(outcome.status, outcome.status)
    if said not in (PENDING, row.status):
        logger.error(
            "%s %s is %s but its provider now answers %s: left for staff",
            kind.name,
            row.pk,
            row.status,
            outcome.status,
        )
    row.save(update_fields=fields)
    return row


def _nothing_more(row: Movement, outcome: ProviderOutcome, now: datetime) -> list[str]:
    return []


def _never(row: Movement, now: datetime) -> None:
    return None


@dataclass(frozen=True, kw_only=True)
class Kind:
    """What one kind of movement is. Every hook is called under the movement's row lock, in the
    transaction of the change."""

    name: str  # the event types are f"{name}.{status}"
    model: type[models.Model]
    # Its one final status that is not a failure (a settlement's is paid).
    succeeded: str = SUCCEEDED
    transitions: Mapping[str, frozenset[str]]
    final: frozenset[str]
    signal: Signal  # its domain event (core.events)
    represent: Callable[[Movement], dict]  # how the API shows it: the event's data
    # Waits (seconds) between status checks, by how many were made (check_count); the last
    # one repeats.
    backoff: Callable[[Movement], Sequence[float]]
    # The ledger row a final status writes, by status.
    ledger: Mapping[str, str] = field(default_factory=dict)
    # Where its event's webhook goes ("" for the mode's endpoint).
    destination_url: Callable[[Movement], str] = lambda row: row.callback_url
    # A provider's final status this kind knows by another name (a declined refund is failed).
    aliases: Mapping[str, str] = field(default_factory=dict)
    # The failure code and message of a failure its provider did not explain.
    failure_default: tuple[str, str] = ("", "")
    # Takes the row lock and returns the movement (a refund locks its charge first).
    lock: Callable[["Kind", str], Movement] = _row_lock
    # The final answer a pending movement gets once its time is up, else None.
    deadline: Callable[[Movement, datetime], ProviderOutcome | None] = _never
    # No status check is set after this; once it is past, none at all.
    checks_until: Callable[[Movement], datetime | None] = lambda row: None
    # An answer on a final movement: it saves `fields` (the answer kept) and returns the row.
    after_the_end: Callable[["Kind", Movement, ProviderOutcome, list[str], datetime], Movement] = (
        _disagreement_logged
    )
    # The kind's own changes of a final transition, made before the row is saved: returns the
    # row's fields it set.
    on_final: Callable[[Movement, ProviderOutcome, datetime], list[str]] = _nothing_more
    # After its event: returns the movement as the caller gets it.
    after_event: Callable[[Movement, ProviderOutcome], Movement] = lambda row, outcome: row


def _counted(kind: Kind, row: Movement, counter: str | None) -> None:
    if counter is None:
        return
    # In the database, so that no check is lost; the row is locked, so the value read is its own.
    kind.model.objects.filter(pk=row.pk).update(**{counter: F(counter) + 1})
    setattr(row, counter, getattr(row, counter) + 1)


def _next_check_at(
    kind: Kind, row: Movement, now: datetime, check_after: float | None
) -> datetime | None:
    until = kind.checks_until(row)
    if until is not None and now >= until:
        return None
    if check_after is None:
        schedule = kind.backoff(row)
        check_after = schedule[min(row.check_count, len(schedule) - 1)]
    at = now + timedelta(seconds=max(0.0, check_after))
    return at if until is None else min(at, until)


@transaction.atomic
def movement_apply_outcome(
    kind: Kind, *, pk: str, outcome: ProviderOutcome, counter: str | None = None
) -> Movement:
    """Apply an answer about a movement of this kind (steps in the module's docstring).
    counter: the counter this answer adds one to (check_count for a status check), or None."""
    row = kind.lock(kind, pk)
    now = timezone.now()
    fields = answer_record(
        row, raw=outcome.raw, provider_reference=outcome.provider_reference, at=now
    )
    _counted(kind, row, counter)
    if row.status in kind.final:
        return kind.after_the_end(kind, row, outcome, fields, now)
    if outcome.status == PENDING:
        outcome = kind.deadline(row, now) or outcome
    if outcome.status == PENDING:
        row.next_check_at = _next_check_at(kind, row, now, outcome.check_after)
        row.save(update_fields=[*fields, "next_check_at"])
        return row
    new_status = kind.aliases.get(outcome.status, outcome.status)
    state.check_transition(kind.name, kind.transitions, row.status, new_status)
    if new_status not in kind.final:  # a step on the way: no money moves, nobody is told
        row.status = new_status
        row.updated_at = now
        row.save(update_fields=[*fields, "status", "updated_at"])
        return row
    failed = new_status != kind.succeeded
    code, message = kind.failure_default
    row.status = new_status
    row.failure_code = (outcome.failure_code or code) if failed else ""
    row.failure_message = (outcome.failure_message or message) if failed else ""
    row.next_check_at = None
    row.finalized_at = now
    row.updated_at = now
    own = kind.on_final(row, outcome, now)
    row.save(
        update_fields=[
            *dict.fromkeys(
                [
                    *fields,
                    *own,
                    "status",
                    "failure_code",
                    "failure_message",
                    "next_check_at",
                    "finalized_at",
                    "updated_at",
                ]
            )
        ]
    )
    if new_status in kind.ledger:
        ledger_record(type=kind.ledger[new_status], source=row)
    kind.signal.send(
        sender=kind.model,
        instance=row,
        type=f"{kind.name}.{row.status}",
        data=kind.represent(row),
        destination_url=kind.destination_url(row),
    )
    return kind.after_event(row, outcome)
