from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class PaymentsConfig(AppConfig):
    name = "payments"
    verbose_name = _("Payments")

    def ready(self) -> None:
        # Models need the app registry ready; the tasks are registered in every process, being
        # enqueued by name (core/queues.py).
        from payments import checks, tasks  # noqa: F401
        from payments.api import principals

        principals.connect()
