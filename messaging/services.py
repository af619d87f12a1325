"""Text messages: queued in the caller's transaction, sent by a worker once it commits.

A message is a row. A worker claims it with one conditional UPDATE (queued and unclaimed → claimed)
before it calls the vendor, so two workers given the same message (a task redelivered, the sweep
overlapping a retry) never both send it; the claim is released only when the vendor said it could
not take the message (5xx, a timeout, no connection), for the next attempt. A worker that dies while
it holds a claim leaves the message unsent rather than sent twice: the sweep marks it failed."""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from messaging import queues
from messaging.models import Message, MessageKind, MessageStatus, MessagingSettings
from messaging.providers import registry
from messaging.providers.base import (
    DeliveryReport,
    OutgoingSms,
    SmsRejected,
    SmsTemporaryError,
)
from payments.models import Merchant

logger = logging.getLogger("messaging")

TEST_PROVIDER = "test"
# A message due this long ago whose task has not claimed it was lost with the broker: the sweep
# enqueues it again (seconds).
SWEEP_GRACE = 60
# A claim older than this belongs to a worker that died while sending (seconds; a vendor call
# ends within SMS_HTTP_TIMEOUT).
CLAIM_LOST_AFTER = 900


class SendLater(Exception):
    """The vendor could not take the message now: the task tries again in `countdown` seconds."""

    def __init__(self, countdown: int, reason: str):
        super().__init__(reason)
        self.countdown = countdown


def sms_queue(*, merchant: Merchant, livemode: bool, to: str, body: str, kind: str) -> Message:
    """A message to `to` (E.164). Live: written now and sent by a worker once the caller's
    transaction commits (never from inside it: a slow vendor never holds a payment back). Test
    mode sends nothing: the message is kept, `sent`, for the test inbox."""
    if kind not in MessageKind.values:
        raise ValueError(f"unknown message kind {kind!r}")
    now = timezone.now()
    if not livemode:
        return Message.objects.create(
            merchant=merchant,
            livemode=False,
            to=to,
            body=body,
            kind=kind,
            status=MessageStatus.SENT,
            provider=TEST_PROVIDER,
            created_at=now,
            sent_at=now,
        )
    message = Message.objects.create(
        merchant=merchant,
        livemode=True,
        to=to,
        body=body,
        kind=kind,
        created_at=now,
        next_attempt_at=now,
    )
    message_id = message.id
    transaction.on_commit(lambda: queues.sms_send_enqueue(message_id), robust=True)
    return message


def messaging_settings(merchant: Merchant) -> MessagingSettings:
    """The merchant's text message settings (the defaults until it changed one)."""
    found = MessagingSettings.objects.filter(merchant=merchant).first()
    return found or MessagingSettings(merchant=merchant)


def sms_receipts_set(*, merchant: Merchant, enabled: bool) -> MessagingSettings:
    chosen, _ = MessagingSettings.objects.update_or_create(
        merchant=merchant, defaults={"sms_receipts": enabled}
    )
    return chosen


def sender_name(merchant: Merchant) -> str:
    return messaging_settings(merchant).sender_name or settings.SMS_SENDER_NAME


def status_callback_url(provider: str) -> str:
    """Our delivery-report address for `provider`, for vendors that take one per message."""
    return f"{settings.PUBLIC_BASE_URL}/sms/status/{provider}"


def sms_send(*, message_id: str) -> bool:
    """Send a queued live message once. True: the vendor took it now; False: nothing to do
    (already sent, failed, claimed by another worker, or not due). SendLater when the vendor could
    not take it and an attempt is left."""
    now = timezone.now()
    claimed = Message.objects.filter(
        pk=message_id,
        livemode=True,
        status=MessageStatus.QUEUED,
        claimed_at__isnull=True,
        # Not before its time: a retry's countdown and the sweep may both bring it.
        next_attempt_at__lte=now + timedelta(seconds=5),
    ).update(claimed_at=now, attempts=F("attempts") + 1)
    if not claimed:
        return False
    message = Message.objects.select_related("merchant").get(pk=message_id)
    adapter = registry.adapter()
    sms = OutgoingSms(
        to=message.to,
        body=message.body,
        sender=sender_name(message.merchant),
        reference=message.id,
        status_callback_url=status_callback_url(adapter.name),
    )
    try:
        accepted = adapter.send(sms)
    except SmsTemporaryError as exc:
        return _not_taken(message, adapter.name, str(exc))
    except SmsRejected as exc:
        logger.warning("SMS %s refused by %s: %s", message.id, adapter.name, exc)
        Message.objects.filter(pk=message.id).update(
            status=MessageStatus.FAILED,
            provider=adapter.name,
            claimed_at=None,
            next_attempt_at=None,
            error=str(exc)[:500],
        )
        return False
    Message.objects.filter(pk=message.id).update(
        status=MessageStatus.SENT,
        provider=adapter.name,
        vendor_id=accepted.vendor_id[:100],
        sent_at=timezone.now(),
        claimed_at=None,
        next_attempt_at=None,
        error="",
    )
    return True


def _not_taken(message: Message, provider: str, reason: str) -> bool:
    schedule = settings.SMS_RETRY_SCHEDULE
    if message.attempts > len(schedule):
        logger.warning(
            "SMS %s given up after %s attempts: %s", message.id, message.attempts, reason
        )
        Message.objects.filter(pk=message.id).update(
            status=MessageStatus.FAILED,
            provider=provider,
            claimed_at=None,
            next_attempt_at=None,
            error=reason[:500],
        )
        return False
    countdown = schedule[message.attempts - 1]
    logger.info(
        "SMS %s not taken by %s (%s): again in %ss", message.id, provider, reason, countdown
    )
    Message.objects.filter(pk=message.id).update(
        provider=provider,
        claimed_at=None,
        next_attempt_at=timezone.now() + timedelta(seconds=countdown),
        error=reason[:500],
    )
    raise SendLater(countdown, reason)


def messages_sweep(*, limit: int = 500) -> int:
    """The periodic sweep: queued messages whose task was lost (the broker was away when they
    committed, or a retry's countdown was lost) get one now; claims of workers that died while
    sending are given up (the message may have gone: it is never sent twice)."""
    now = timezone.now()
    lost = Message.objects.filter(
        status=MessageStatus.QUEUED, claimed_at__lt=now - timedelta(seconds=CLAIM_LOST_AFTER)
    ).update(
        status=MessageStatus.FAILED,
        claimed_at=None,
        next_attempt_at=None,
        error="the worker sending it stopped: not sent again",
    )
    if lost:
        logger.warning("%s messages given up: their worker stopped while sending", lost)
    due = list(
        Message.objects.filter(
            status=MessageStatus.QUEUED,
            claimed_at__isnull=True,
            next_attempt_at__lte=now - timedelta(seconds=SWEEP_GRACE),
        )
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:limit]
    )
    for message_id in due:
        queues.sms_send_enqueue(message_id)
    return len(due)


# The order of a message's statuses once sent: a report never moves a message back.
_AFTER_SENT = {MessageStatus.DELIVERED, MessageStatus.FAILED}


def delivery_reports_record(*, provider: str, reports: list[DeliveryReport]) -> int:
    """The vendor's delivery reports, each applied to the message it names (by the vendor's id):
    a sent message becomes delivered or failed, once. Returns how many changed."""
    changed = 0
    for report in reports:
        if report.status not in _AFTER_SENT:
            continue
        updates = {"status": report.status, "error": report.error[:500]}
        if report.status == MessageStatus.DELIVERED:
            updates["delivered_at"] = timezone.now()
        changed += Message.objects.filter(
            provider=provider,
            vendor_id=report.vendor_id,
            livemode=True,
            status=MessageStatus.SENT,
        ).update(**updates)
    return changed
