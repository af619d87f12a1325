"""Reads of checkout sessions, for the API and the hosted pages."""

from datetime import datetime

from django.db.models import QuerySet

from checkout.models import CheckoutSession, SessionStatus
from core.errors import ResourceMissing
from payments.models import Charge, ChargeStatus
from payments.selectors import OVERDUE_GRACE, _date_filtered


def sessions_of(*, merchant, livemode: bool) -> QuerySet:
    return CheckoutSession.objects.filter(merchant=merchant, livemode=livemode)


def session_list(*, merchant, livemode: bool, filters: dict) -> QuerySet:
    qs = sessions_of(merchant=merchant, livemode=livemode)
    if filters.get("status"):
        qs = qs.filter(status=filters["status"])
    return _date_filtered(qs, filters.get("date_from"), filters.get("date_to"))


def session_get(*, merchant, livemode: bool, session_id: str) -> CheckoutSession:
    session = CheckoutSession.objects.filter(
        merchant=merchant, livemode=livemode, pk=session_id
    ).first()
    if session is None:
        raise ResourceMissing("checkout session", session_id)
    return session


def session_for_page(*, session_id: str) -> CheckoutSession | None:
    """The session behind a /pay/{id} address (anyone holding the address may pay it)."""
    return CheckoutSession.objects.select_related("merchant").filter(pk=session_id).first()


def session_pending_charge(*, session: CheckoutSession) -> Charge | None:
    return session.charges.filter(status=ChargeStatus.PENDING).order_by("-created_at").first()


def session_charge(*, session: CheckoutSession, charge_id: str) -> Charge | None:
    if not charge_id:
        return None
    return session.charges.filter(pk=charge_id).first()


def sessions_past_expiry(*, livemode: bool, now: datetime) -> QuerySet:
    """Sessions still open more than OVERDUE_GRACE after they expired, oldest first: the expiry
    job should have closed them (the staff's overview)."""
    return (
        CheckoutSession.objects.filter(
            livemode=livemode, status=SessionStatus.OPEN, expires_at__lte=now - OVERDUE_GRACE
        )
        .select_related("merchant")
        .order_by("expires_at")
    )
