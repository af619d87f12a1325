"""The outbox: events are rows written inside the transaction of the change they report."""

from django.db import transaction

from payments.models import Merchant
from webhooks.models import Event


def event_record(
    *, merchant: Merchant, livemode: bool, type: str, data: dict, destination_url: str = ""
) -> Event:
    """Write the event of a state change. Must be called inside that change's transaction."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("event_record must run inside the transaction of the state change")
    return Event.objects.create(
        merchant=merchant,
        livemode=livemode,
        type=type,
        data={"object": data},
        destination_url=destination_url or merchant.webhook_url,
    )
