"""Reads: the events a merchant in one mode may see, and where an event goes today."""

from django.db.models import QuerySet

from core.errors import ResourceMissing
from payments.models import Charge, Merchant, Payout
from webhooks.models import Event, WebhookEndpoint


def events_of(*, merchant: Merchant, livemode: bool) -> QuerySet:
    return Event.objects.filter(merchant=merchant, livemode=livemode)


def event_list(*, merchant: Merchant, livemode: bool, filters: dict) -> QuerySet:
    qs = events_of(merchant=merchant, livemode=livemode)
    if filters.get("type"):
        qs = qs.filter(type=filters["type"])
    return qs


def event_get(*, merchant: Merchant, livemode: bool, event_id: str) -> Event:
    event = Event.objects.filter(merchant=merchant, livemode=livemode, pk=event_id).first()
    if event is None:
        raise ResourceMissing("event", event_id)
    return event


def event_callback_url(*, event: Event) -> str:
    """The callback_url of the event's charge (also for the charge's refunds) or payout, or ""
    when it has none (its deliveries then go to the mode's default URL)."""
    obj = event.data.get("object") or {}
    kind = obj.get("object")
    source = {
        "charge": (Charge, obj.get("id")),
        "refund": (Charge, obj.get("charge_id")),
        "payout": (Payout, obj.get("id")),
    }.get(kind)
    if not (source and source[1]):
        return ""
    model, pk = source
    return (
        model.objects.filter(pk=pk, merchant_id=event.merchant_id)
        .values_list("callback_url", flat=True)
        .first()
        or ""
    )


def event_current_destination(*, event: Event) -> str:
    """Where the event would be sent now: the callback_url of its charge (also for the charge's
    refunds) or of its payout, if it has one, else the merchant's current default URL."""
    return event_callback_url(event=event) or (
        WebhookEndpoint.objects.filter(merchant_id=event.merchant_id, livemode=event.livemode)
        .values_list("url", flat=True)
        .first()
        or ""
    )


def event_deliveries(*, event: Event) -> QuerySet:
    """The event's deliveries, newest first, each with its attempts (two queries a page)."""
    return event.deliveries.prefetch_related("attempt_log").order_by("-created_at", "-id")
