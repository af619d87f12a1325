from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core import events


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = _("Merchant dashboard")

    def ready(self) -> None:
        """Sign-ins (succeeded and failed) and two-factor changes write the audit log; the demo
        merchant of `make run` gets a demo owner (core/events.py)."""
        from dashboard import demo, signals

        signals.connect()
        events.demo_merchant_ready.connect(demo.demo_owner, dispatch_uid="dashboard.demo_owner")
