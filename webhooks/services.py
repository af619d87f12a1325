"""The outbox and its deliveries.

Events are rows written inside the transaction of the change they report; a delivery row is written
with them and its first attempt is enqueued only once that transaction commits. Each attempt claims
the row first, so two workers never send the same delivery at once, and a periodic sweep re-enqueues
whatever the broker lost.
"""

import logging
import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from payments.broker import publish
from payments.errors import InvalidRequest
from payments.models import Merchant, new_webhook_secret
from webhooks import signing, transport
from webhooks.models import Delivery, DeliveryAttempt, DeliveryStatus, Event, WebhookEndpoint
from webhooks.representations import event_body

logger = logging.getLogger("webhooks")

HOLD_MARGIN = 30  # seconds a claim outlives the longest possible attempt
SWEEP_GRACE = 60  # a due delivery no task has picked up after this is enqueued again
SWEEP_BATCH = 500
ROTATION_OVERLAP = timedelta(hours=24)  # a rotated-out secret still signs deliveries this long
# A backlog drains in batches: a delivery task also takes the deliveries to the same URL that have
# waited this long, up to BATCH, and starts no attempt after BATCH_SECONDS.
BACKLOG_WAIT = 1.0
BATCH = 50
BATCH_SECONDS = 5.0


# --- Endpoints: one default URL and signing secret per mode -----------------------------------


def endpoint_get(*, merchant: Merchant, livemode: bool) -> WebhookEndpoint:
    """The mode's endpoint (made on first use for a merchant that has none yet)."""
    endpoint, _ = WebhookEndpoint.objects.get_or_create(merchant=merchant, livemode=livemode)
    return endpoint


@transaction.atomic
def endpoints_create(*, merchant: Merchant, url: str = "") -> list[WebhookEndpoint]:
    """A new merchant's two endpoints: the same default URL, a secret of their own each."""
    return [
        WebhookEndpoint.objects.create(merchant=merchant, livemode=livemode, url=url)
        for livemode in (False, True)
    ]


@transaction.atomic
def endpoint_set_url(*, merchant: Merchant, livemode: bool, url: str) -> WebhookEndpoint:
    """Set (or clear, with "") the mode's default URL; the other mode's is untouched."""
    endpoint = endpoint_get(merchant=merchant, livemode=livemode)
    endpoint.url = url
    endpoint.updated_at = timezone.now()
    endpoint.save(update_fields=["url", "updated_at"])
    return endpoint


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


def _enqueue(delivery_id: int, *, countdown: float | None = None) -> None:
    from webhooks import tasks

    eta = timezone.now() + timedelta(seconds=countdown) if countdown else None
    publish(tasks.delivery_send, (delivery_id,), eta=eta)


def _enqueue_on_commit(delivery_id: int) -> None:
    # robust: a broker that is down must not fail the change that was just committed; the sweep
    # sends the delivery later.
    transaction.on_commit(lambda: _enqueue(delivery_id), robust=True)


def _delivery_create(*, event: Event, url: str) -> Delivery:
    delivery = Delivery.objects.create(event=event, url=url, next_attempt_at=timezone.now())
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
        _delivery_create(event=event, url=event.destination_url)
    return event


def status_event_record(obj, *, data: dict, destination_url: str = "") -> Event:
    """The `<object>.<status>` event (charge.succeeded, refund.failed, payout.succeeded, …) of a
    charge, refund or payout that has just reached its status; `data` is how the API shows it."""
    return event_record(
        merchant=obj.merchant,
        livemode=obj.livemode,
        type=f"{data['object']}.{obj.status}",
        data=data,
        destination_url=destination_url,
    )


@transaction.atomic
def event_resend(*, event: Event, url: str) -> Delivery:
    """A new delivery of the same event (same id, so receivers can de-duplicate) to `url`, unless
    one to `url` is still waiting for its first attempt: that one is the answer. A resend asked
    in a loop, or twice by a double click, so queues the event once, not once per call, and one
    merchant's resends cannot fill the delivery workers' queue; once the waiting delivery has been
    attempted, a resend makes a new one again. The event's row is locked while this is decided,
    so two resends at once make one delivery."""
    Event.objects.select_for_update().filter(pk=event.pk).values_list("pk").first()
    waiting = (
        event.deliveries.filter(url=url, status=DeliveryStatus.PENDING, attempts=0)
        .order_by("-created_at", "-id")
        .first()
    )
    if waiting is not None:
        return waiting
    return _delivery_create(event=event, url=url)


def event_resend_now(*, event: Event) -> Delivery:
    """The merchant's resend: a new delivery to where the event would go now (its charge's
    callback_url, else the mode's default URL). 400 when there is nowhere to send it."""
    from webhooks.selectors import event_current_destination

    url = event_current_destination(event=event)
    if not url:
        raise InvalidRequest(
            _(
                "This event has nowhere to go: set the webhook endpoint's URL first "
                "(POST /v1/webhook_endpoint)."
            ),
            code="webhook_url_missing",
        )
    return event_resend(event=event, url=url)


def _claim(delivery_id: int) -> bool:
    """Take the delivery for one attempt if it is due and nobody holds it (one UPDATE, so two
    workers cannot both win)."""
    now = timezone.now()
    hold = now + timedelta(seconds=2 * settings.WEBHOOK_TIMEOUT + HOLD_MARGIN)
    return bool(
        Delivery.objects.filter(
            Q(locked_until__isnull=True) | Q(locked_until__lt=now),
            pk=delivery_id,
            status=DeliveryStatus.PENDING,
            next_attempt_at__lte=now,
        ).update(locked_until=hold)
    )


@transaction.atomic
def _claim_backlog(*, url: str, besides: int) -> list[int]:
    """Take up to BATCH - 1 more deliveries to the same URL that have been due for BACKLOG_WAIT
    seconds or more and that nobody holds (oldest first; rows another worker is taking are
    skipped), held for a whole batch."""
    now = timezone.now()
    ids = list(
        Delivery.objects.select_for_update(skip_locked=True)
        .filter(
            Q(locked_until__isnull=True) | Q(locked_until__lt=now),
            url=url,
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
    event = delivery.event
    body = event_body(event)
    attempted_at = timezone.now()
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
    if not _claim(delivery_id):
        return None
    delivery = Delivery.objects.select_related("event__merchant").get(pk=delivery_id)
    event = delivery.event
    answer, attempted_at = _send(
        delivery, endpoint_get(merchant=event.merchant, livemode=event.livemode)
    )
    return _attempt_record(delivery=delivery, answer=answer, attempted_at=attempted_at)


def delivery_send(*, delivery_id: int) -> Delivery | None:
    """One attempt of the delivery (as delivery_attempt); a failed one that may be retried is
    enqueued again for its next attempt on WEBHOOK_RETRY_SCHEDULE.

    When deliveries to the same URL have been waiting BACKLOG_WAIT or more (the workers are
    behind), the task also takes up to BATCH of them, sends them one after the other over the
    same connection and records every attempt in one transaction: a backlog drains in batches. A
    task whose delivery another task holds (in its batch) takes a batch of the rest. No attempt
    is started after BATCH_SECONDS, nor after one that got no answer (the receiver is down):
    those taken are given back untouched, for their own tasks (or the sweep).

    Returns the task's delivery after its attempt, or None when it made none."""
    taken = []
    if _claim(delivery_id):
        taken.append(Delivery.objects.select_related("event").get(pk=delivery_id))
        url = taken[0].url
    else:
        url = (
            Delivery.objects.filter(pk=delivery_id, status=DeliveryStatus.PENDING)
            .values_list("url", flat=True)
            .first()
        )
        if url is None:
            return None
    more = _claim_backlog(url=url, besides=delivery_id)
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
            _enqueue(item.pk, countdown=max(0.0, wait))
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
    Delivery.objects.bulk_update([delivery for delivery, _, _ in done], ATTEMPT_FIELDS)


@transaction.atomic
def deliveries_overdue() -> list[int]:
    """Pending deliveries due for a while that nobody holds: their task was lost (broker down,
    worker died). They are marked as due now, so the next sweep leaves them alone for a while."""
    now = timezone.now()
    ids = list(
        Delivery.objects.filter(
            Q(locked_until__isnull=True) | Q(locked_until__lt=now),
            status=DeliveryStatus.PENDING,
            next_attempt_at__lte=now - timedelta(seconds=SWEEP_GRACE),
        )
        .order_by("next_attempt_at")
        .values_list("id", flat=True)[:SWEEP_BATCH]
    )
    Delivery.objects.filter(pk__in=ids, status=DeliveryStatus.PENDING).update(next_attempt_at=now)
    return ids


def deliveries_sweep() -> int:
    """Enqueue every delivery whose task was lost (deliveries_overdue). Nothing sent is ever
    lost, only delayed. Returns how many were enqueued."""
    ids = deliveries_overdue()
    for delivery_id in ids:
        _enqueue(delivery_id)
    return len(ids)
