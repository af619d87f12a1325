from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PaymentsConfig(AppConfig):
    name = "payments"
    verbose_name = _("Payments")

    def ready(self) -> None:
        from payments.api import principals  # its models need the app registry ready

        principals.connect()
