from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core import events


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = _("Merchant dashboard")

    def ready(self) -> None:
        """Sign-ins (succeeded and failed) and two-factor changes write the audit log; the demo
        merchant of `make run` gets a demo owner and a demo staff member (core/events.py); a
        staff user's address counts as verified (dashboard/staff.py); a password reset lifts
        the sign-in lock (dashboard/signin.py)."""
        from allauth.account.signals import password_reset
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from dashboard import demo, signals, signin, staff

        signals.connect()
        events.demo_merchant_ready.connect(demo.demo_owner, dispatch_uid="dashboard.demo_owner")
        events.demo_merchant_ready.connect(demo.demo_staff, dispatch_uid="dashboard.demo_staff")
        post_save.connect(
            staff.staff_address_verified,
            sender=get_user_model(),
            dispatch_uid="dashboard.staff_address_verified",
        )
        password_reset.connect(signin.lift_lock, dispatch_uid="dashboard.lift_lock")
