"""What /v1's webhook requests take, shared with the dashboard's developers page, whose form hands
what people type to the same serializer."""

from drf_spectacular.utils import extend_schema_serializer

from core.api.fields import HttpUrlField, StrictSerializer


@extend_schema_serializer(component_name="WebhookEndpointUpdateRequest")
class WebhookEndpointIn(StrictSerializer):
    """The URL this mode's events are sent to."""

    url = HttpUrlField(
        allow_null=True,
        destination=True,
        help_text="https in live mode; null stops sending (events are still kept).",
    )
