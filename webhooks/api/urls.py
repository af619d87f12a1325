"""/v1 routes of the webhooks app."""

from django.urls import path

from webhooks.api import views

urlpatterns = [
    path("webhook_endpoint", views.WebhookEndpointView.as_view(), name="webhook-endpoint"),
    path(
        "webhook_endpoint/rotate_secret",
        views.WebhookSecretRotateView.as_view(),
        name="webhook-endpoint-rotate-secret",
    ),
    path("events", views.EventListView.as_view(), name="event-list"),
    path("events/<str:event_id>", views.EventDetailView.as_view(), name="event-detail"),
    path(
        "events/<str:event_id>/deliveries",
        views.EventDeliveriesView.as_view(),
        name="event-deliveries",
    ),
    path("events/<str:event_id>/resend", views.EventResendView.as_view(), name="event-resend"),
]
