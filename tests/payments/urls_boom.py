from django.urls import include, path

from tests.payments.test_errors import urlpatterns as boom

urlpatterns = [*boom, path("", include("config.urls"))]
