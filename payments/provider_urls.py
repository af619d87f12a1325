"""Routes of the operators' callbacks (under /providers/)."""

from django.urls import path

from payments import provider_callbacks

urlpatterns = [
    path("airtel_money/callback", provider_callbacks.airtel_callback, name="airtel-callback"),
    path("orange_money/callback", provider_callbacks.orange_callback, name="orange-callback"),
]
