from django.apps import AppConfig


class PaymentsConfig(AppConfig):
    name = "payments"
    verbose_name = "Payments"

    def ready(self) -> None:
        from config import database
        from payments.api import principals

        principals.connect()
        database.connect()
