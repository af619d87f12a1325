"""The merchant's default webhook endpoint and the events API (contract §9)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from payments import services
from payments.api.base import ApiView
from payments.api.fields import HttpUrlField, StrictSerializer
from payments.api.pagination import paginate
from webhooks import selectors
from webhooks.models import EventType
from webhooks.representations import event_repr


class WebhookEndpointIn(StrictSerializer):
    url = HttpUrlField(allow_null=True, destination=True)


def webhook_endpoint_repr(merchant) -> dict:
    return {
        "object": "webhook_endpoint",
        "url": merchant.webhook_url or None,
        "secret": merchant.webhook_secret,
    }


class WebhookEndpointOut(serializers.Serializer):
    object = serializers.CharField()
    url = serializers.URLField(allow_null=True)
    secret = serializers.CharField(help_text="whsec_… secret that signs every delivery.")


class WebhookEndpointView(ApiView):
    """The default URL every event of this merchant is sent to (a charge's callback_url overrides it)."""

    serializer_class = WebhookEndpointIn

    def get(self, request):
        return Response(webhook_endpoint_repr(self.merchant))

    def post(self, request):
        data = self.validated(WebhookEndpointIn)
        merchant = services.merchant_set_webhook_url(merchant=self.merchant, url=data["url"] or "")
        return Response(webhook_endpoint_repr(merchant))


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
