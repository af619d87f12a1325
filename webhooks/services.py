"""The outbox and its deliveries.

Events are rows written inside the transaction of the change they report; a delivery row is written
with them and its first attempt is enqueued only once that transaction commits, on the deliveries'
own queue (WEBHOOKS_QUEUE). Each attempt claims the row first, so two workers never send the same
delivery at once, and a periodic sweep re-enqueues whatever the broker lost.

One merchant's deliveries in one mode are attempted at most WEBHOOK_ATTEMPTS_AT_ONCE at a time,
across every worker (slots in the shared cache): a receiver that answers slowly, or a byte at a
time, holds that many threads and no more, and the other merchants' deliveries go on. A task that
finds every slot taken leaves its delivery due and goes; the task that next gives a slot back
enqueues the merchant's oldest due delivery (and the sweep any that was missed); a task so woken
whose delivery was sent meanwhile by another task's batch passes the wake on. Resends are
bounded per event and per merchant and mode over the last hour (RESENDS_PER_EVENT,
RESENDS_PER_ACCOUNT), counted in the database.
"""

import logging
import math
import time
from datetime import timedelta

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext as _
from kombu.exceptions import OperationalError

from core import slots
from core.errors import InvalidRequest
from payments.models import Merchant, new_webhook_secret
from webhooks import queues, signing, transport
from webhooks.errors import ResendsLimited
from webhooks.models import (
    Delivery,
    DeliveryAttempt,
    DeliveryStatus,
    Event,
    Resend,
    WebhookEndpoint,
)
from webhooks.representations import event_body
from webhooks.selectors import event_callback_url

logger = logging.getLogger("webhooks")

HOLD_MARGIN = 30  # seconds a claim outlives the longest possible attempt
SWEEP_GRACE = 60  # a due delivery no task has picked up after this is enqueued again
SWEEP_BATCH = 500
ROTATION_OVERLAP = timedelta(hours=24)  # a rotated-out secret still signs deliveries this long
# A backlog drains in batches: a delivery task also takes the deliveries to the same URL that have
# waited this long, up to BATCH, and starts no attempt after BATCH_SECONDS. A fifth of a second:
# a delivery that found its merchant's slots taken goes with the next task that takes one, rather
# than waiting for a wake-up of its own, which comes later (docs/performance.md shows the
# difference under load); one whose task runs meanwhile finds it taken and ends.
BACKLOG_WAIT = 0.2
BATCH = 50
BATCH_SECONDS = 5.0
# Resends asked for (API or staff) in the last RESEND_WINDOW: per event, and per merchant and mode.
RESEND_WINDOW = timedelta(hours=1)
RESENDS_PER_EVENT = 5
RESENDS_PER_ACCOUNT = 100
# The cache's slots of attempts at once (core.slots), and the mark of a task that found none.
SLOT_KIND = "webhook"
WAITING_MARK = "webhook-waiting:{holder}"
WAITING_MARK_TTL = 600  # seconds: longer than any slot is held
NO_URL = "The mode's webhook endpoint has no URL any more: not sent."


# --- Endpoints: one default URL and signing secret per mode -----------------------------------


def endpoint_get(*, merchant: Merchant, livemode: bool) -> WebhookEndpoint:
    """The mode's endpoint (made on first use for a merchant that has none yet)."""
    endpoint, _ = WebhookEndpoint.objects.get_or_create(merchant=merchant, livemode=livemode)
    return endpoint


@transaction.atomic
def endpoints_create(
    *, merchant: Merchant, url: str = "", secrets: dict[bool, str]
) -> list[WebhookEndpoint]:
    """A new merchant's two endpoints: the same default URL, a secret of their own each
    (`secrets` by livemode)."""
    return [
        WebhookEndpoint.objects.create(
            merchant=merchant, livemode=livemode, url=url, secret=secrets[livemode]
        )
        for livemode in (False, True)
    ]


def endpoints_on_merchant_created(
    sender, *, instance: Merchant, webhook_url: str, webhook_secrets: dict[bool, str], **kwargs
) -> None:
    """webhooks/'s receiver of core.events.merchant_created, in the merchant's transaction."""
    endpoints_create(merchant=instance, url=webhook_url, secrets=webhook_secrets)


@transaction.atomic
def endpoint_set_url(*, merchant: Merchant, livemode: bool, url: str) -> bool:
    """Set (or clear, with "") the mode's default URL; the other mode's is untouched. True if
    this call changed it, decided under the row's lock: the URL it has already (a form sent
    again) changes nothing, not even its updated_at."""
    endpoint_get(merchant=merchant, livemode=livemode)
    endpoint = WebhookEndpoint.objects.select_for_update().get(merchant=merchant, livemode=livemode)
    if endpoint.url == url:
        return False
    endpoint.url = url
    endpoint.updated_at = timezone.now()
    endpoint.save(update_fields=["url", "updated_at"])
    return True


@transaction.atomic
def endpoint_rotate_secret(*, merchant: Merchant, livemode: bool) -> WebhookEndpoint:
    """A new signing secret for the mode. The current one keeps signing deliveries beside it for
    ROTATION_OVERLAP, so receivers can switch without missing an event."""
    endpoint_get(merchant=merchant, livemode=livemode)
    endpoint = WebhookEndpoint.objects.select_for_update().get(merchant=merchant, livemode=livemode)
    now = timezone.now()
    endpoint.previous_secret = endpoint.secret
    endpoint.previous_secret_expires_at = now + ROTATION_OVERLAP
    endpoint.secret = new_webhook_secret()
    endpoint.updated_at = now
    endpoint.save()
    return endpoint


# --- Events and deliveries ----------------------------------------------------------------------


def _enqueue_on_commit(delivery_id: int) -> None:
    # robust: a broker that is down must not fail the change that was just committed; the sweep
    # sends the delivery later.
    transaction.on_commit(lambda: queues.delivery_send_enqueue(delivery_id), robust=True)


def _delivery_create(*, event: Event, url: str, follows_endpoint: bool) -> Delivery:
    delivery = Delivery.objects.create(
        event=event,
        merchant_id=event.merchant_id,
        livemode=event.livemode,
        url=url,
        follows_endpoint=follows_endpoint,
        next_attempt_at=timezone.now(),
    )
    _enqueue_on_commit(delivery.id)
    return delivery


def event_record(
    *, merchant: Merchant, livemode: bool, type: str, data: dict, destination_url: str = ""
) -> Event:
    """Write the event of a state change and, when it has a destination, its delivery.

    Must be called inside that change's transaction: a rolled-back change leaves no event and
    sends nothing. Without a destination URL the event is kept (GET /v1/events) but not sent."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("event_record must run inside the transaction of the state change")
    event = Event.objects.create(
        merchant=merchant,
        livemode=livemode,
        type=type,
        data={"object": data},
        destination_url=destination_url or endpoint_get(merchant=merchant, livemode=livemode).url,
    )
    if event.destination_url:
        _delivery_create(
            event=event, url=event.destination_url, follows_endpoint=not destination_url
        )
    return event


def event_on_change(sender, *, instance, type: str, data: dict, destination_url: str, **kwargs):
    """The outbox's receiver of the domain events (core/events.py): the `<object>.<status>` event
    (charge.succeeded, refund.failed, payout.succeeded, checkout.session.completed, …) of an
    object that has just reached its status, written in the transaction of that change. The
    merchant is named by its id alone: nothing of it but its key is written, so it is not read."""
    event_record(
        merchant=Merchant(pk=instance.merchant_id),
        livemode=instance.livemode,
        type=type,
        data=data,
        destination_url=destination_url,
    )


@transaction.atomic
def event_resend(*, event: Event) -> Delivery:
    """A new delivery of the same event (same id, so receivers can de-duplicate) to where it
    would go now: its charge's or payout's callback_url, else the mode's default URL (followed
    at each attempt). 400 webhook_url_missing when there is nowhere to send it.

    Bounded: at most RESENDS_PER_EVENT resends of the event and RESENDS_PER_ACCOUNT of the
    merchant's events in the mode over the last RESEND_WINDOW, counted in the database (the
    mode's endpoint row, then the event's, are locked while this is decided, so two resends at
    once count one after the other); beyond, ResendsLimited (429) with the seconds until one
    more may be asked. While a delivery to the same destination still waits for its first
    attempt, that one is the answer, and no second one is queued; it counts all the same."""
    endpoint = endpoint_get(merchant=event.merchant, livemode=event.livemode)
    endpoint = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    Event.objects.select_for_update().filter(pk=event.pk).values_list("pk").first()
    now = timezone.now()
    _resends_check(event=event, now=now)
    url = event_callback_url(event=event)
    follows_endpoint = not url
    url = url or endpoint.url
    if not url:
        raise InvalidRequest(
            _(
                "This event has nowhere to go: set the webhook endpoint's URL first "
                "(POST /v1/webhook_endpoint)."
            ),
            code="webhook_url_missing",
        )
    waiting = event.deliveries.filter(status=DeliveryStatus.PENDING, attempts=0)
    waiting = (
        waiting.filter(Q(follows_endpoint=True) | Q(url=url))
        if follows_endpoint
        else waiting.filter(follows_endpoint=False, url=url)
    )
    delivery = waiting.order_by("-created_at", "-id").first()
    if delivery is None:
        delivery = _delivery_create(event=event, url=url, follows_endpoint=follows_endpoint)
    Resend.objects.create(
        event=event,
        merchant_id=event.merchant_id,
        livemode=event.livemode,
        delivery=delivery,
        created_at=now,
    )
    return delivery


def _resends_check(*, event: Event, now) -> None:
    """ResendsLimited when one more resend of `event` would pass a limit of the last hour."""
    since = now - RESEND_WINDOW
    limits = [
        (Resend.objects.filter(event=event), RESENDS_PER_EVENT, ResendsLimited.EVENT),
        (
            Resend.objects.filter(merchant_id=event.merchant_id, livemode=event.livemode),
            RESENDS_PER_ACCOUNT,
            ResendsLimited.ACCOUNT,
        ),
    ]
    for resends, limit, message in limits:
        times = list(
            resends.filter(created_at__gt=since)
            .order_by("-created_at")
            .values_list("created_at", flat=True)[:limit]
        )
        if len(times) >= limit:  # one more once the limit-th newest has left the window
            wait = math.ceil((times[-1] + RESEND_WINDOW - now).total_seconds())
            raise ResendsLimited(message, count=limit, wait=max(1, wait))


def _claim(delivery_id: int) -> Delivery | None:
    """The delivery (with its event and merchant), taken for one attempt if it is due and nobody
    holds it; None otherwise. Its row is locked by its id alone, then checked, so two workers
    cannot both win. (A single UPDATE with the status and due time among its conditions was
    planned, whenever the statistics had sampled no pending delivery, on delivery_due_idx: it
    read every due delivery of the table to find this one, a backlog's worth for each attempt.)"""
    now = timezone.now()
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_related("event__merchant")
            .select_for_update(of=("self",))
            .filter(pk=delivery_id)
            .first()
        )
        if (
            delivery is None
            or delivery.status != DeliveryStatus.PENDING
            or delivery.next_attempt_at is None
            or delivery.next_attempt_at > now
            or (delivery.locked_until is not None and delivery.locked_until >= now)
        ):
            return None
        delivery.locked_until = now + timedelta(seconds=2 * settings.WEBHOOK_TIMEOUT + HOLD_MARGIN)
        delivery.save(update_fields=["locked_until"])
    return delivery


@transaction.atomic
def _claim_backlog(*, url: str, merchant_id: str, livemode: bool, besides: int) -> list[int]:
    """Take up to BATCH - 1 more deliveries of the same merchant and mode to the same URL that
    have been due for BACKLOG_WAIT seconds or more and that nobody holds (oldest first; rows
    another worker is taking are skipped), held for a whole batch (under the task's one slot)."""
    now = timezone.now()
    ids = list(
        Delivery.objects.select_for_update(skip_locked=True)
        .filter(
            Q(locked_until__isnull=True) | Q(locked_until__lt=now),
            url=url,
            merchant_id=merchant_id,
            livemode=livemode,
            status=DeliveryStatus.PENDING,
            next_attempt_at__lte=now - timedelta(seconds=BACKLOG_WAIT),
        )
        .exclude(pk=besides)
        .order_by("next_attempt_at", "id")
        .values_list("id", flat=True)[: BATCH - 1]
    )
    if ids:
        hold = now + timedelta(seconds=BATCH_SECONDS + 2 * settings.WEBHOOK_TIMEOUT + HOLD_MARGIN)
        Delivery.objects.filter(pk__in=ids).update(locked_until=hold)
    return ids


def event_signed_headers(*, event: Event, body: bytes, at) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt, signed with the event's mode's secret(s)."""
    endpoint = endpoint_get(merchant=event.merchant, livemode=event.livemode)
    return signing.signed_headers(secrets=endpoint.signing_secrets(at), msg_id=event.id, body=body)


def _send(delivery: Delivery, endpoint: WebhookEndpoint) -> tuple[transport.Answer, object]:
    """One attempt. A delivery to the mode's default URL goes to that URL as it is now (and
    records it as its own); none left, it fails without a request."""
    event = delivery.event
    attempted_at = timezone.now()
    if delivery.follows_endpoint:
        if not endpoint.url:
            return transport.Answer(None, NO_URL, "", 0, refused=True), attempted_at
        delivery.url = endpoint.url
    body = event_body(event)
    headers = signing.signed_headers(
        secrets=endpoint.signing_secrets(attempted_at), msg_id=event.id, body=body
    )
    answer = transport.post(
        url=delivery.url,
        body=body,
        headers=headers,
        livemode=event.livemode,
        timeout=settings.WEBHOOK_TIMEOUT,
        allow_private=settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS,
    )
    return answer, attempted_at


def delivery_attempt(*, delivery_id: int) -> Delivery | None:
    """Make the next attempt of a delivery if it is due and not being made elsewhere.

    Returns the delivery as it stands after the attempt, or None when there was nothing to do.
    Runs outside any transaction: the HTTP request is never made while one is open."""
    delivery = _claim(delivery_id)
    if delivery is None:
        return None
    event = delivery.event
    answer, attempted_at = _send(
        delivery, endpoint_get(merchant=event.merchant, livemode=event.livemode)
    )
    return _attempt_record(delivery=delivery, answer=answer, attempted_at=attempted_at)


def delivery_send(*, delivery_id: int, woken: bool = False) -> Delivery | None:
    """One attempt of the delivery (as delivery_attempt); a failed one that may be retried is
    enqueued again for its next attempt on WEBHOOK_RETRY_SCHEDULE.

    The attempt takes one of its merchant's slots for the mode (WEBHOOK_ATTEMPTS_AT_ONCE across
    every worker): with none free, the delivery stays due, untouched, and the task ends at once;
    whoever gives a slot back then enqueues the merchant's oldest due delivery (_wake_next).

    When deliveries of the same merchant and mode to the same URL have been waiting BACKLOG_WAIT
    or more (the workers are behind), the task also takes up to BATCH of them, sends them one
    after the other over the same connection and records every attempt in one transaction: a
    backlog drains in batches. A task whose delivery another task holds (in its batch) takes a
    batch of the rest. No attempt is started after BATCH_SECONDS, nor after one that got no
    answer (the receiver is down): those taken are given back untouched, for their own tasks (or
    the sweep).

    A task `woken` by a slot given back whose delivery another task's batch has sent meanwhile
    wakes the next waiting delivery in its stead: otherwise that wake would be lost, and with it
    one of the merchant's slots until the sweep.

    Returns the task's delivery after its attempt, or None when it made none."""
    found = (
        Delivery.objects.filter(pk=delivery_id)
        .values_list("status", "url", "merchant_id", "livemode", "event_id")
        .first()
    )
    if found is None:
        return None
    status, url, merchant_id, livemode, event_id = found
    if merchant_id is None:  # a row without an owner of its own (migration 0008): its event's
        merchant_id, livemode = _owner_record(delivery_id=delivery_id, event_id=event_id)
    holder = f"{merchant_id}:{livemode:d}"
    if status != DeliveryStatus.PENDING:
        if woken:
            _wake_next(holder=holder, merchant_id=merchant_id, livemode=livemode)
        return None
    slot = _slot_take(holder)
    if slot is None:
        return None
    try:
        return _send_batch(
            delivery_id=delivery_id, url=url, merchant_id=merchant_id, livemode=livemode
        )
    finally:
        slot.close()
        _wake_next(holder=holder, merchant_id=merchant_id, livemode=livemode)


def _owner_record(*, delivery_id: int, event_id: str) -> tuple[str, bool]:
    """The merchant and mode of a delivery written without them, from its event, now kept on it
    (so that the merchant's waiting deliveries include it)."""
    merchant_id, livemode = Event.objects.values_list("merchant_id", "livemode").get(pk=event_id)
    Delivery.objects.filter(pk=delivery_id).update(merchant_id=merchant_id, livemode=livemode)
    return merchant_id, livemode


def _slot_take(holder: str):
    """One of the holder's slots of attempts at once, or None when all are taken. A task that
    finds none marks the holder as having a delivery waiting, then looks once more: either a
    slot given back meanwhile is found, or whoever gives one back later sees the mark."""
    limit = settings.WEBHOOK_ATTEMPTS_AT_ONCE
    slot = slots.take(SLOT_KIND, holder, limit)
    if slot is None:
        _quietly(cache.set, WAITING_MARK.format(holder=holder), 1, WAITING_MARK_TTL)
        slot = slots.take(SLOT_KIND, holder, limit)
    return slot


def _wake_next(*, holder: str, merchant_id: str, livemode: bool) -> None:
    """After a slot is given back: if a task found none free, enqueue the merchant's oldest due
    delivery of the mode that nobody holds (its task takes the slot). The mark stays while there
    is one, so that each slot given back wakes one more: it is taken away only once no delivery
    waits, and is never absent meanwhile (two slots given back at once each read it and each wake
    one; had one of them found it missing, the merchant's backlog would lose a slot until the
    sweep)."""
    mark = WAITING_MARK.format(holder=holder)
    if not _quietly(cache.get, mark):
        return
    waiting = _oldest_waiting(merchant_id=merchant_id, livemode=livemode)
    if waiting is None:
        _quietly(cache.delete, mark)
        # A task that found no slot while the mark was being taken away set it again, and its
        # delivery is due by now: it is woken here.
        waiting = _oldest_waiting(merchant_id=merchant_id, livemode=livemode)
        if waiting is None:
            return
        _quietly(cache.set, mark, 1, WAITING_MARK_TTL)
    try:
        queues.delivery_send_enqueue(waiting, woken=True)
    except OperationalError as exc:  # the broker is away: the sweep enqueues it later
        logger.warning("delivery %s not woken, broker unavailable: %s", waiting, exc)


def _oldest_waiting(*, merchant_id: str, livemode: bool) -> int | None:
    """The merchant's oldest due delivery of the mode that nobody holds."""
    now = timezone.now()
    return (
        Delivery.objects.filter(
            Q(locked_until__isnull=True) | Q(locked_until__lt=now),
            status=DeliveryStatus.PENDING,
            next_attempt_at__lte=now,
            merchant_id=merchant_id,
            livemode=livemode,
        )
        .order_by("next_attempt_at", "id")
        .values_list("id", flat=True)
        .first()
    )


def _quietly(call, *args):
    """A call to the shared cache; out of reach, the slots are not counted (core.slots)."""
    try:
        return call(*args)
    except Exception as exc:
        logger.warning("webhook slots not counted, cache unavailable: %s", type(exc).__name__)
        return None


def _send_batch(*, delivery_id: int, url: str, merchant_id: str, livemode: bool):
    taken = []
    claimed = _claim(delivery_id)
    if claimed is not None:
        taken.append(claimed)
        url = claimed.url
    more = _claim_backlog(url=url, merchant_id=merchant_id, livemode=livemode, besides=delivery_id)
    if more:
        others = Delivery.objects.select_related("event").in_bulk(more)
        taken += [others[pk] for pk in more if pk in others]
    if not taken:
        return None
    endpoints = _endpoints_of([item.event for item in taken])
    started = time.monotonic()
    done: list[tuple[Delivery, transport.Answer, object]] = []
    for item in taken:
        if done and (time.monotonic() - started > BATCH_SECONDS or done[-1][1].status_code is None):
            break
        event = item.event
        answer, attempted_at = _send(item, endpoints[(event.merchant_id, event.livemode)])
        done.append((item, answer, attempted_at))
    untouched = [item.pk for item in taken[len(done) :]]
    if untouched:
        Delivery.objects.filter(pk__in=untouched, status=DeliveryStatus.PENDING).update(
            locked_until=None
        )
    _attempts_record(done)
    for item, _answer, _at in done:
        if item.status == DeliveryStatus.PENDING and item.next_attempt_at:
            wait = (item.next_attempt_at - timezone.now()).total_seconds()
            queues.delivery_send_enqueue(item.pk, countdown=max(0.0, wait))
    return taken[0] if taken[0].pk == delivery_id else None


def _endpoints_of(events: list[Event]) -> dict[tuple[str, bool], WebhookEndpoint]:
    """The signing endpoint of each (merchant, mode) of `events`, in one query."""
    wanted = {(event.merchant_id, event.livemode) for event in events}
    found = {
        (endpoint.merchant_id, endpoint.livemode): endpoint
        for endpoint in WebhookEndpoint.objects.filter(
            merchant_id__in={merchant_id for merchant_id, _ in wanted}
        )
    }
    for merchant_id, livemode in wanted - found.keys():  # a merchant made before endpoints were
        found[(merchant_id, livemode)] = endpoint_get(
            merchant=Merchant(pk=merchant_id), livemode=livemode
        )
    return found


def _attempt_apply(*, delivery: Delivery, answer: transport.Answer, attempted_at, now):
    """The attempt's row, and its outcome applied to `delivery` (not saved)."""
    attempt = DeliveryAttempt(
        delivery=delivery,
        event_id=delivery.event_id,
        attempted_at=attempted_at,
        url=delivery.url,
        status_code=answer.status_code,
        error=answer.error,
        duration_ms=answer.duration_ms,
        response_body=answer.body,
    )
    schedule = settings.WEBHOOK_RETRY_SCHEDULE
    delivery.attempts += 1
    delivery.locked_until = None
    delivery.updated_at = now
    if answer.ok:
        delivery.status = DeliveryStatus.SUCCEEDED
        delivery.delivered_at = now
        delivery.next_attempt_at = None
        delivery.last_error = ""
    elif answer.refused or delivery.attempts > len(schedule):
        delivery.status = DeliveryStatus.FAILED
        delivery.next_attempt_at = None
        delivery.last_error = answer.error
        logger.warning("delivery %s of %s failed: %s", delivery.id, delivery.event_id, answer.error)
    else:
        delivery.next_attempt_at = now + timedelta(seconds=schedule[delivery.attempts - 1])
        delivery.last_error = answer.error
    return attempt


ATTEMPT_FIELDS = [
    "url",
    "status",
    "attempts",
    "next_attempt_at",
    "locked_until",
    "last_error",
    "updated_at",
    "delivered_at",
]


@transaction.atomic
def _attempt_record(*, delivery: Delivery, answer: transport.Answer, attempted_at) -> Delivery:
    attempt = _attempt_apply(
        delivery=delivery, answer=answer, attempted_at=attempted_at, now=timezone.now()
    )
    attempt.save(force_insert=True)
    delivery.save(update_fields=ATTEMPT_FIELDS)
    return delivery


@transaction.atomic
def _attempts_record(done: list[tuple[Delivery, transport.Answer, object]]) -> None:
    """Several attempts at once: their rows and their deliveries, in one transaction."""
    if len(done) == 1:
        (delivery, answer, attempted_at), *_ = done
        _attempt_record(delivery=delivery, answer=answer, attempted_at=attempted_at)
        return
    now = timezone.now()
    attempts = [
        _attempt_apply(delivery=delivery, answer=answer, attempted_at=attempted_at, now=now)
        for delivery, answer, attempted_at in done
    ]
    DeliveryAttempt.objects.bulk_create(attempts)
    # Those that succeeded all end alike: one plain UPDATE per URL (a bulk_update's CASE of every
    # row for every field costs the worker more than the attempts' own requests).
    succeeded: dict[str, list[Delivery]] = {}
    for delivery, _, _ in done:
        if delivery.status == DeliveryStatus.SUCCEEDED:
            succeeded.setdefault(delivery.url, []).append(delivery)
    for url, deliveries in succeeded.items():
        Delivery.objects.filter(pk__in=[delivery.pk for delivery in deliveries]).update(
            url=url,
            status=DeliveryStatus.SUCCEEDED,
            attempts=F("attempts") + 1,
            next_attempt_at=None,
            locked_until=None,
            last_error="",
            updated_at=now,
            delivered_at=now,
        )
    others = [delivery for delivery, _, _ in done if delivery.status != DeliveryStatus.SUCCEEDED]
    if others:
        Delivery.objects.bulk_update(others, ATTEMPT_FIELDS)


@transaction.atomic
def deliveries_overdue() -> list[int]:
    """Pending deliveries due for a while that nobody holds: their task was lost (broker down,
    worker died). They are marked as due now, so the next sweep leaves them alone for a while."""
    now = timezone.now()
    overdue = {
        "status": DeliveryStatus.PENDING,
        "next_attempt_at__lte": now - timedelta(seconds=SWEEP_GRACE),
    }
    # Claimed under a row lock that skips rows another sweep holds: two sweeps at once (two
    # beats) never both return a delivery.
    with transaction.atomic():
        ids = list(
            Delivery.objects.filter(
                Q(locked_until__isnull=True) | Q(locked_until__lt=now), **overdue
            )
            .order_by("next_attempt_at")
            .select_for_update(skip_locked=True)
            .values_list("id", flat=True)[:SWEEP_BATCH]
        )
        Delivery.objects.filter(pk__in=ids, **overdue).update(next_attempt_at=now)
    return ids


def deliveries_sweep() -> int:
    """Enqueue every delivery whose task was lost (deliveries_overdue). Nothing sent is ever
    lost, only delayed. Returns how many were enqueued."""
    ids = deliveries_overdue()
    for delivery_id in ids:
        queues.delivery_send_enqueue(delivery_id)
    return len(ids)
