"""/v1 routes of messaging."""

from django.urls import path

from messaging.api import views

urlpatterns = [
    path("test_helpers/messages", views.TestMessageListView.as_view(), name="test-messages"),
]
