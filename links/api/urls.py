"""/v1 routes of payment links."""

from django.urls import path

from links.api import views

urlpatterns = [
    path("payment_links", views.LinkListCreateView.as_view(), name="payment-links"),
    path("payment_links/<str:link_id>", views.LinkDetailView.as_view(), name="payment-link"),
]
