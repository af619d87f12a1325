"""How an event looks in the API and in the body of a delivery (one place, used by both)."""

import json

from payments.representations import iso
from webhooks.models import Event


def event_repr(event: Event) -> dict:
    return {
        "id": event.id,
        "object": "event",
        "type": event.type,
        "livemode": event.livemode,
        "created_at": iso(event.created_at),
        "data": event.data,
    }


def event_body(event: Event) -> bytes:
    """The exact bytes that are signed and sent (the same on every attempt)."""
    return json.dumps(event_repr(event), ensure_ascii=False, separators=(",", ":")).encode()
