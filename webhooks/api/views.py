"""The merchant's default webhook endpoint and the events API."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from payments.api.base import ApiView
from payments.api.fields import HttpUrlField, StrictSerializer
from payments.api.pagination import paginate
from payments.representations import iso
from webhooks import selectors, services
from webhooks.models import EventType
from webhooks.representations import event_repr


class WebhookEndpointIn(StrictSerializer):
    url = HttpUrlField(allow_null=True, destination=True)


def webhook_endpoint_repr(endpoint) -> dict:
    return {
        "object": "webhook_endpoint",
        "livemode": endpoint.livemode,
        "url": endpoint.url or None,
        "secret": endpoint.secret,
        "previous_secret_expires_at": iso(endpoint.previous_secret_expires_at),
    }


class WebhookEndpointOut(serializers.Serializer):
    object = serializers.CharField()
    livemode = serializers.BooleanField()
    url = serializers.URLField(allow_null=True)
    secret = serializers.CharField(help_text="whsec_… secret that signs this mode's deliveries.")
    previous_secret_expires_at = serializers.DateTimeField(
        allow_null=True,
        help_text="Until then the secret replaced by the last rotation also signs deliveries.",
    )


class WebhookEndpointView(ApiView):
    """The default URL this mode's events are sent to (a charge's callback_url overrides it) and
    the secret that signs them. A test key sees and changes only the test endpoint."""

    serializer_class = WebhookEndpointIn

    @extend_schema(responses={200: WebhookEndpointOut}, summary="Retrieve the webhook endpoint")
    def get(self, request):
        endpoint = services.endpoint_get(merchant=self.merchant, livemode=self.livemode)
        return Response(webhook_endpoint_repr(endpoint))

    @extend_schema(responses={200: WebhookEndpointOut}, summary="Set the webhook endpoint's URL")
    def post(self, request):
        data = self.validated(WebhookEndpointIn)
        endpoint = services.endpoint_set_url(
            merchant=self.merchant, livemode=self.livemode, url=data["url"] or ""
        )
        return Response(webhook_endpoint_repr(endpoint))


class WebhookSecretRotateView(ApiView):
    """A new signing secret for this mode; the previous one keeps signing for 24 hours."""

    @extend_schema(request=None, responses={200: WebhookEndpointOut}, summary="Rotate the secret")
    def post(self, request):
        self.validated(StrictSerializer)
        endpoint = services.endpoint_rotate_secret(merchant=self.merchant, livemode=self.livemode)
        return Response(webhook_endpoint_repr(endpoint))


class EventListQuery(StrictSerializer):
    limit = serializers.CharField(required=False)
    offset = serializers.CharField(required=False)
    starting_after = serializers.CharField(required=False)
    type = serializers.ChoiceField(choices=EventType.values, required=False)


def _events(rows) -> list[dict]:
    return [event_repr(event) for event in rows]


class EventListView(ApiView):
    @extend_schema(parameters=[EventListQuery], responses={200: dict}, summary="List events")
    def get(self, request):
        filters = self.validated(EventListQuery, data=request.query_params.dict())
        queryset = selectors.event_list(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        return Response(paginate(request, queryset, _events))


class EventDetailView(ApiView):
    @extend_schema(responses={200: dict}, summary="Retrieve an event")
    def get(self, request, event_id: str):
        event = selectors.event_get(
            merchant=self.merchant, livemode=self.livemode, event_id=event_id
        )
        return Response(event_repr(event))


def delivery_repr(delivery) -> dict:
    return {
        "object": "delivery",
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


class EventDeliveriesView(ApiView):
    """Every delivery of an event (the first and each resend, newest first) with its attempts:
    when, the HTTP status or the error, how long it took."""

    @extend_schema(responses={200: dict}, summary="List an event's deliveries and attempts")
    def get(self, request, event_id: str):
        event = selectors.event_get(
            merchant=self.merchant, livemode=self.livemode, event_id=event_id
        )
        deliveries = selectors.event_deliveries(event=event)
        return Response(
            {
                "object": "list",
                "url": request.path,
                "data": [delivery_repr(delivery) for delivery in deliveries],
                "has_more": False,
            }
        )


class EventResendView(ApiView):
    """Send the event again (same event id, so receivers can de-duplicate) to where it would go
    now: its charge's callback_url, else this mode's default URL."""

    @extend_schema(request=None, responses={200: dict}, summary="Resend an event")
    def post(self, request, event_id: str):
        self.validated(StrictSerializer)
        event = selectors.event_get(
            merchant=self.merchant, livemode=self.livemode, event_id=event_id
        )
        delivery = services.event_resend_now(event=event)
        return Response(delivery_repr(delivery))
