"""Checkout session state changes (contract §7)."""

from django.db import transaction
from django.utils import timezone

from checkout.models import CheckoutSession, SessionStatus
from payments.models import Charge, ChargeStatus


def session_repr(session: CheckoutSession) -> dict:
    from checkout.representations import checkout_session_repr

    return checkout_session_repr(session)


@transaction.atomic
def session_charge_finalized(*, charge: Charge) -> None:
    """A charge of the session reached a final status. A success completes the session, once."""
    if charge.status != ChargeStatus.SUCCEEDED:
        return
    session = CheckoutSession.objects.select_for_update().get(pk=charge.checkout_session_id)
    if session.status != SessionStatus.OPEN:
        return
    now = timezone.now()
    session.status = SessionStatus.COMPLETE
    session.succeeded_charge = charge
    session.completed_at = now
    session.updated_at = now
    session.save(update_fields=["status", "succeeded_charge", "completed_at", "updated_at"])
    from webhooks.services import event_record

    event_record(
        merchant=session.merchant,
        livemode=session.livemode,
        type="checkout.session.completed",
        data=session_repr(session),
    )
