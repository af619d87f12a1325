"""What every SMS adapter takes and gives: an adapter never touches a model."""

from dataclasses import dataclass, field
from typing import Protocol


class SmsTemporaryError(Exception):
    """The vendor could not take the message now (5xx, a timeout, no connection): try later."""


class SmsRejected(Exception):
    """The vendor refused the message (a bad number, no credit, bad credentials): not retried."""


class CallbackRefused(Exception):
    """A delivery report that is not the vendor's (a bad signature, a missing field)."""


@dataclass(frozen=True)
class OutgoingSms:
    to: str  # E.164, "+243…"
    body: str
    sender: str  # the sender name or number shown on the phone
    reference: str  # our message id
    # Where the vendor reports the delivery, when it takes one address per message ("" if not).
    status_callback_url: str = ""


@dataclass(frozen=True)
class SmsAccepted:
    vendor_id: str


@dataclass(frozen=True)
class DeliveryReport:
    """What a vendor's delivery report says of one message: `delivered`, `failed` or `sent`
    (still on its way)."""

    vendor_id: str
    status: str
    error: str = ""


@dataclass(frozen=True)
class IncomingCallback:
    """A vendor's request to our delivery-report address, as received."""

    url: str  # the absolute address it was sent to
    headers: dict[str, str] = field(default_factory=dict)  # lower-cased names
    body: bytes = b""
    form: dict[str, str] = field(default_factory=dict)  # a form-encoded body, parsed


class SmsProvider(Protocol):
    name: str

    def send(self, sms: OutgoingSms) -> SmsAccepted:
        """Hand one message to the vendor; SmsTemporaryError or SmsRejected when it did not."""
        ...

    def delivery_reports(self, callback: IncomingCallback) -> list[DeliveryReport]:
        """The reports in a request to our callback address; CallbackRefused when it is not
        the vendor's."""
        ...
