"""The message object as the API shows it (§23)."""

from messaging.models import Message
from payments.representations import iso


def message_repr(message: Message) -> dict:
    return {
        "id": message.id,
        "object": "message",
        "livemode": message.livemode,
        "to": message.to,
        "body": message.body,
        "kind": message.kind,
        "status": message.status,
        "created_at": iso(message.created_at),
    }
