"""Routes of the sandbox card provider's hosted page (under /sandbox/)."""

from django.urls import path

from sandbox import views

urlpatterns = [
    path("card/pay", views.pay, name="sandbox-card-pay"),
    path("card/pay/<str:transaction_id>/decide", views.decide, name="sandbox-card-decide"),
]
