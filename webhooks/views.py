"""The merchant's default webhook endpoint, and (later) the events API."""

from rest_framework import serializers
from rest_framework.response import Response

from payments import services
from payments.api.base import ApiView
from payments.api.fields import HttpUrlField, StrictSerializer


class WebhookEndpointIn(StrictSerializer):
    url = HttpUrlField(allow_null=True)


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
