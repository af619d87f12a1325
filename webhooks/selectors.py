"""Reads: the events a merchant in one mode may see, and where an event goes today."""

from django.db.models import QuerySet

from payments.errors import ResourceMissing
from payments.models import Charge, Merchant
from webhooks.models import Event, WebhookEndpoint


def event_list(*, merchant: Merchant, livemode: bool, filters: dict) -> QuerySet:
    qs = Event.objects.filter(merchant=merchant, livemode=livemode)
    if filters.get("type"):
        qs = qs.filter(type=filters["type"])
    return qs


def event_get(*, merchant: Merchant, livemode: bool, event_id: str) -> Event:
    event = Event.objects.filter(merchant=merchant, livemode=livemode, pk=event_id).first()
    if event is None:
        raise ResourceMissing("event", event_id)
    return event


def event_current_destination(*, event: Event) -> str:
    """Where the event would be sent now: its charge's callback_url if that charge has one (also
    for the charge's refunds), else the merchant's current default URL."""
    obj = event.data.get("object") or {}
    charge_id = {"charge": obj.get("id"), "refund": obj.get("charge_id")}.get(obj.get("object"))
    if charge_id:
        callback_url = (
            Charge.objects.filter(pk=charge_id, merchant_id=event.merchant_id)
            .values_list("callback_url", flat=True)
            .first()
        )
        if callback_url:
            return callback_url
    return (
        WebhookEndpoint.objects.filter(merchant_id=event.merchant_id, livemode=event.livemode)
        .values_list("url", flat=True)
        .first()
        or ""
    )


def event_deliveries(*, event: Event, limit: int = 100) -> list:
    """The event's deliveries, newest first, each with its attempts (two queries in all)."""
    return list(
        event.deliveries.prefetch_related("attempt_log").order_by("-created_at", "-id")[:limit]
    )
