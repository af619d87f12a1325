"""/v1 routes of checkout sessions."""

from django.urls import path

from checkout.api import views

urlpatterns = [
    path("checkout/sessions", views.SessionListCreateView.as_view(), name="checkout-sessions"),
    path(
        "checkout/sessions/<str:session_id>",
        views.SessionDetailView.as_view(),
        name="checkout-session",
    ),
    path(
        "checkout/sessions/<str:session_id>/expire",
        views.SessionExpireView.as_view(),
        name="checkout-session-expire",
    ),
]
