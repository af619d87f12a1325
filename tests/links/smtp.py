"""A local SMTP server (aiosmtpd) that keeps what it is sent: the outside mail server of the
receipts' tests. `refuse` answers the next messages with a temporary refusal (451)."""

import contextlib
import email
import threading
from dataclasses import dataclass, field
from email.message import Message

from aiosmtpd.controller import Controller

from tests.helpers import free_port


@dataclass
class Sink:
    port: int = 0
    messages: list[Message] = field(default_factory=list)
    refuse: int = 0
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"smtp://127.0.0.1:{self.port}"

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            if self.refuse:
                self.refuse -= 1
                self.refused += 1
                return "451 4.3.0 Try again later"
            self.messages.append(email.message_from_bytes(envelope.content))
        return "250 OK"


@contextlib.contextmanager
def serving():
    sink = Sink(port=free_port())
    controller = Controller(sink, hostname="127.0.0.1", port=sink.port)
    controller.start()
    try:
        yield sink
    finally:
        controller.stop()


def parts(message: Message) -> dict[str, str]:
    """content type → decoded text of each part of a (multipart) message."""
    return {
        part.get_content_type(): part.get_payload(decode=True).decode(
            part.get_content_charset() or "utf-8"
        )
        for part in message.walk()
        if not part.is_multipart()
    }
