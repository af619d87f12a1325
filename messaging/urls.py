from django.urls import path

from messaging import views

urlpatterns = [
    path("r/<str:token>", views.receipt_page, name="sms-receipt"),
    path("sms/status/<str:provider>", views.delivery_report, name="sms-status"),
    path("sms/status/<str:provider>/<str:token>", views.delivery_report, name="sms-status-token"),
]
