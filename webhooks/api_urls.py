"""/v1 routes of the webhooks app."""

from django.urls import path

from webhooks import views

urlpatterns = [
    path("webhook_endpoint", views.WebhookEndpointView.as_view(), name="webhook-endpoint"),
    path("events", views.EventListView.as_view(), name="event-list"),
    path("events/<str:event_id>", views.EventDetailView.as_view(), name="event-detail"),
]
