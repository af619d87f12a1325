"""/v1 routes of checkout sessions."""

from django.urls import path

from checkout import views_api

urlpatterns = [
    path("checkout/sessions", views_api.SessionListCreateView.as_view(), name="checkout-sessions"),
    path(
        "checkout/sessions/<str:session_id>",
        views_api.SessionDetailView.as_view(),
        name="checkout-session",
    ),
    path(
        "checkout/sessions/<str:session_id>/expire",
        views_api.SessionExpireView.as_view(),
        name="checkout-session-expire",
    ),
]
