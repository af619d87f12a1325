"""/v1 routes of the webhooks app."""

from django.urls import path

from webhooks import views

urlpatterns = [
    path("webhook_endpoint", views.WebhookEndpointView.as_view(), name="webhook-endpoint"),
]
