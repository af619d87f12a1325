"""Asking a provider about a charge, refund or payout, and keeping what it answered.

An answer that says nothing (the provider unreachable, timed out, a 5xx, a reply we cannot read)
decides nothing: it is unknown whether the provider got the request, so the payment or refund
stays pending and is asked about again later, never failed for it. Every answer is kept on the
charge or refund (the newest RAW_HISTORY) for staff; none of it is ever shown to merchants.
"""

import logging
from collections.abc import Callable
from datetime import datetime

from django.utils import timezone

from core.errors import ProviderUnavailable
from payments.models import Charge, PaymentMethod, Payout, Refund
from payments.providers import registry
from payments.providers.base import OutcomeStatus, ProviderError, ProviderOutcome

logger = logging.getLogger("payments.services")

RAW_HISTORY = 20  # provider answers kept per charge or refund, for staff
PENDING: OutcomeStatus = "pending"  # charges and refunds alike: nothing decided yet


def provider_for(charge: Charge):
    """The adapter of the charge's rail (and network), chosen by settings. Raises
    ProviderUnavailable for a provider that is no longer connected."""
    if charge.payment_method == PaymentMethod.CARD:
        return registry.card(livemode=charge.livemode)
    return registry.mobile_money(livemode=charge.livemode, network=charge.network)


def provider_ask(
    ask: Callable[[], ProviderOutcome],
    *,
    action: str,
    about: str,
    unavailable_pending: bool = False,
    check_after: float | None = None,
) -> ProviderOutcome:
    """The provider's answer to `ask` (an adapter call), or `pending` when it said nothing.

    action and about name the call and the charge or refund in the log. A provider that is no
    longer connected (ProviderUnavailable) is raised to the caller, unless unavailable_pending:
    then it is one more answer that says nothing. check_after: when to ask again after an answer
    that said nothing (None: the usual wait)."""
    unknown = (ProviderError, ProviderUnavailable) if unavailable_pending else (ProviderError,)
    try:
        return ask()
    except unknown as exc:
        logger.warning("%s for %s failed: %s", action, about, exc)
        return ProviderOutcome(status=PENDING, check_after=check_after, raw={"error": str(exc)})


def call_claim(model, pk: str) -> bool:
    """Take the one call to the provider of a pending refund or payout: its provider_requested_at
    set by one atomic UPDATE, so that whoever runs it too (a task delivered twice, a sweep racing
    it) finds it taken and calls nobody. False when it was taken already or is settled."""
    return bool(
        model.objects.filter(pk=pk, status=PENDING, provider_requested_at__isnull=True).update(
            provider_requested_at=timezone.now()
        )
    )


def answer_record(
    payment: Charge | Refund | Payout, *, raw: dict, provider_reference: str = "", at: datetime
) -> list[str]:
    """Keep a provider's answer on a charge or refund, not yet saved: its raw answer appended to
    the history (the newest RAW_HISTORY) unless it is the same as the last one kept (the same
    reply asked about again, a status that has not moved: one line in the payment's timeline,
    and the history keeps the answers that differ), and the provider's reference the first time
    one comes. Returns the fields to save."""
    fields = ["provider_raw"]
    last = payment.provider_raw[-1] if payment.provider_raw else None
    repeated = isinstance(last, dict) and {k: v for k, v in last.items() if k != "at"} == raw
    if raw and not repeated:
        payment.provider_raw = [*payment.provider_raw, {"at": at.isoformat(), **raw}][-RAW_HISTORY:]
    if provider_reference and not payment.provider_reference:
        payment.provider_reference = provider_reference
        fields.append("provider_reference")
    return fields
