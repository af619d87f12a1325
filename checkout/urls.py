"""Hosted checkout pages."""

from django.urls import path

from checkout import views

urlpatterns = [
    path("pay/<str:session_id>", views.pay, name="checkout-pay"),
    path("pay/<str:session_id>/mobile-money", views.pay_mobile_money, name="checkout-mobile-money"),
    path("pay/<str:session_id>/card", views.pay_card, name="checkout-card"),
    path("pay/<str:session_id>/card-return", views.card_return, name="checkout-card-return"),
    path("pay/<str:session_id>/status", views.attempt_status, name="checkout-status"),
]
