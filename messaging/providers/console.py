"""The development adapter: each message is written to the log, and counts as sent."""

import logging

from messaging import gsm
from messaging.providers.base import CallbackRefused, IncomingCallback, OutgoingSms, SmsAccepted

logger = logging.getLogger("messaging.console")


class ConsoleSms:
    name = "console"

    def send(self, sms: OutgoingSms) -> SmsAccepted:
        logger.info(
            "SMS %s from %s to %s (%s, %s characters): %s",
            sms.reference,
            sms.sender,
            sms.to,
            gsm.encoding(sms.body),
            gsm.length(sms.body),
            sms.body,
        )
        return SmsAccepted(vendor_id=f"console-{sms.reference}")

    def delivery_reports(self, callback: IncomingCallback):
        raise CallbackRefused("the console sends no delivery reports")
