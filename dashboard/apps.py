from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core import events


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = _("Merchant dashboard")

    def ready(self) -> None:
        """Sign-ins (succeeded and failed) and two-factor changes write the audit log; the demo
        merchant of `make run`, and a merchant made by createmerchant --owner-email, get an owner; the
        API asks the team's rules before a live
        key pays out alone (core/events.py)."""
        from dashboard import demo, services, signals

        signals.connect()
        events.demo_merchant_ready.connect(demo.demo_owner, dispatch_uid="dashboard.demo_owner")
        events.api_payout_creating.connect(
            services.api_payouts_allowed, dispatch_uid="dashboard.api_payouts_allowed"
        )
        events.api_payout_batch_creating.connect(
            services.api_batch_approval_required,
            dispatch_uid="dashboard.api_batch_approval_required",
        )
        events.merchant_owner_named.connect(
            services.owner_named, dispatch_uid="dashboard.owner_named"
        )
