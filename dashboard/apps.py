from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = _("Merchant dashboard")

    def ready(self) -> None:
        """Sign-ins (succeeded and failed) and two-factor changes write the audit log."""
        from dashboard import signals

        signals.connect()
