"""The merchant's default webhook endpoint and the events API."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from core.api.base import ApiView
from core.api.fields import OffsetPageQuery, PageQuery, StrictSerializer
from core.api.pagination import paginate
from payments.representations import iso
from webhooks import selectors, services
from webhooks.api import schemas
from webhooks.api.serializers import WebhookEndpointIn
from webhooks.models import EventType
from webhooks.representations import event_repr


def webhook_endpoint_repr(endpoint) -> dict:
    return {
        "object": "webhook_endpoint",
        "livemode": endpoint.livemode,
        "url": endpoint.url or None,
        "secret": endpoint.secret,
        "previous_secret_expires_at": iso(endpoint.previous_secret_expires_at),
    }


class WebhookEndpointView(ApiView):
    """The default URL this mode's events are sent to (a charge's callback_url overrides it) and
    the secret that signs them. A test key sees and changes only the test endpoint."""

    serializer_class = WebhookEndpointIn

    @extend_schema(
        operation_id="webhook_endpoint_retrieve",
        tags=["Webhooks"],
        summary="Retrieve the webhook endpoint",
        description="The URL this mode's events are sent to by default (a charge's or payout's "
        "`callback_url` overrides it) and the secret that signs them. A test key sees only the "
        "test endpoint, a live key the live one.",
        responses={200: schemas.WebhookEndpoint},
        examples=schemas.ENDPOINT_EXAMPLES,
    )
    def get(self, request):
        endpoint = services.endpoint_get(merchant=self.merchant, livemode=self.livemode)
        return Response(webhook_endpoint_repr(endpoint))

    @extend_schema(
        operation_id="webhook_endpoint_update",
        tags=["Webhooks"],
        summary="Set the webhook endpoint's URL",
        description="Set (or, with null, clear) the URL this mode's events are sent to.",
        request=WebhookEndpointIn,
        responses={200: schemas.WebhookEndpoint},
        examples=schemas.ENDPOINT_UPDATE,
    )
    def post(self, request):
        data = self.validated(WebhookEndpointIn)
        services.endpoint_set_url(
            merchant=self.merchant, livemode=self.livemode, url=data["url"] or ""
        )
        endpoint = services.endpoint_get(merchant=self.merchant, livemode=self.livemode)
        return Response(webhook_endpoint_repr(endpoint))


class WebhookSecretRotateView(ApiView):
    """A new signing secret for this mode; the previous one keeps signing for 24 hours."""

    @extend_schema(
        operation_id="webhook_endpoint_rotate_secret",
        tags=["Webhooks"],
        summary="Rotate the signing secret",
        description="A new signing secret for this mode; the previous one keeps signing "
        "deliveries for 24 hours, so your receiver can switch without losing any.",
        request=None,
        responses={200: schemas.WebhookEndpoint},
        examples=schemas.ENDPOINT_EXAMPLES,
    )
    def post(self, request):
        self.validated(StrictSerializer)
        endpoint = services.endpoint_rotate_secret(merchant=self.merchant, livemode=self.livemode)
        return Response(webhook_endpoint_repr(endpoint))


class EventListQuery(PageQuery):
    type = serializers.ChoiceField(choices=EventType.values, required=False)


def _events(rows) -> list[dict]:
    return [event_repr(event) for event in rows]


class EventListView(ApiView):
    @extend_schema(
        operation_id="events_list",
        tags=["Webhooks"],
        summary="List events",
        description="Every event of this key's mode, newest first, whether or not it was sent.",
        parameters=[EventListQuery],
        responses={200: schemas.EventList},
        examples=schemas.EVENT_LIST,
    )
    def get(self, request):
        filters = self.validated(EventListQuery, data=self.query())
        queryset = selectors.event_list(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        # any of the caller's events is a cursor, whatever `type` this page asks for
        scope = selectors.events_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, queryset, _events, cursor_scope=scope))


class EventDetailView(ApiView):
    @extend_schema(
        operation_id="events_retrieve",
        tags=["Webhooks"],
        summary="Retrieve an event",
        description="The event, exactly as its deliveries carry it.",
        responses={200: schemas.Event},
        examples=schemas.EVENT_RETRIEVE,
    )
    def get(self, request, event_id: str):
        event = selectors.event_get(
            merchant=self.merchant, livemode=self.livemode, event_id=event_id
        )
        return Response(event_repr(event))


def delivery_repr(delivery) -> dict:
    return {
        "object": "delivery",
        # the event's: read through event.deliveries (or made from the event), so no query; a
        # delivery's own copy is empty on rows from before it was kept
        "livemode": delivery.event.livemode,
        "event_id": delivery.event_id,
        "url": delivery.url,
        "status": delivery.status,
        "created_at": iso(delivery.created_at),
        "next_attempt_at": iso(delivery.next_attempt_at),
        "delivered_at": iso(delivery.delivered_at),
        "attempts": [
            {
                "attempted_at": iso(attempt.attempted_at),
                "url": attempt.url,
                "status_code": attempt.status_code,
                "error": attempt.error or None,
                "duration_ms": attempt.duration_ms,
            }
            for attempt in delivery.attempt_log.all()
        ],
    }


def _deliveries(rows) -> list[dict]:
    return [delivery_repr(delivery) for delivery in rows]


class EventDeliveriesView(ApiView):
    """Every delivery of an event (the first and each resend, newest first) with its attempts:
    when, the HTTP status or the error, how long it took."""

    @extend_schema(
        operation_id="event_deliveries_list",
        tags=["Webhooks"],
        summary="List an event's deliveries and attempts",
        description="Every delivery of the event (the first and each resend, newest first) "
        "with its attempts: when, your endpoint's HTTP status or the error, how long it took. "
        "Paged by limit and offset (a delivery has no id to start after).",
        parameters=[OffsetPageQuery],
        responses={200: schemas.DeliveryList},
        examples=schemas.DELIVERY_LIST,
    )
    def get(self, request, event_id: str):
        self.validated(OffsetPageQuery, data=self.query())
        event = selectors.event_get(
            merchant=self.merchant, livemode=self.livemode, event_id=event_id
        )
        deliveries = selectors.event_deliveries(event=event)
        return Response(paginate(request, deliveries, _deliveries))


class EventResendView(ApiView):
    """Send the event again (same event id, so receivers can de-duplicate) to where it would go
    now: its charge's or payout's callback_url, else this mode's default URL."""

    @extend_schema(
        operation_id="events_resend",
        tags=["Webhooks"],
        summary="Resend an event",
        description="Send the event again, with the same id so your receiver can de-duplicate, "
        "to where it would go now: its charge's `callback_url` (for a charge or one of its "
        "refunds) or its payout's, else this mode's endpoint URL (400 webhook_url_missing when there is none). "
        "The answer is the new delivery; while a delivery of the event to that URL still waits "
        "for its first attempt, it is that delivery, and no second one is queued. At most 5 "
        "resends of an event, and 100 of this mode's events, in an hour (each counts, even one "
        "answered with the waiting delivery): beyond, 429 rate_limited, with the seconds to wait "
        "in Retry-After. A delivery to the endpoint URL goes to the URL as it is at each attempt.",
        request=None,
        responses={200: schemas.Delivery},
        examples=schemas.DELIVERY_EXAMPLES,
    )
    def post(self, request, event_id: str):
        self.validated(StrictSerializer)
        event = selectors.event_get(
            merchant=self.merchant, livemode=self.livemode, event_id=event_id
        )
        delivery = services.event_resend(event=event)
        return Response(delivery_repr(delivery))
