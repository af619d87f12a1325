from allauth.account.signals import password_reset
from django.apps import AppConfig
from django.contrib.auth import get_user_model
from django.db.models.signals import post_save
from django.utils.translation import gettext_lazy as _

from core import events


class DashboardConfig(AppConfig):
    name = "dashboard"
    verbose_name = _("Merchant dashboard")

    def ready(self) -> None:
        """Sign-ins (succeeded and failed), two-factor changes and staff's changes of a price plan
        write the audit log; the demo merchant of `make run` gets a demo owner and a demo staff
        member, and a merchant made by createmerchant --owner-email its owner (core/events.py);
        the API asks the team's rules before a live key pays out alone; a staff user's address
        counts as verified (dashboard/staff.py); a password reset lifts the sign-in lock
        (dashboard/signin.py); a settlement account added or removed is audited, and a live one
        mailed to every owner and admin (dashboard/settlements.py); payments received, payouts
        and settlements paid or failed and batches awaiting approval are noticed for the
        members who chose to hear of them (dashboard/notifications.py)."""
        from dashboard import (  # need the registry
            audit,
            demo,
            notifications,
            services,
            settlements,
            signals,
            signin,
            staff,
        )

        signals.connect()
        events.pricing_updated.connect(audit.pricing_updated, dispatch_uid="dashboard.pricing")
        events.settlement_account_changed.connect(
            settlements.account_changed, dispatch_uid="dashboard.settlement_account_changed"
        )
        events.demo_merchant_ready.connect(demo.demo_owner, dispatch_uid="dashboard.demo_owner")
        events.demo_merchant_ready.connect(demo.demo_staff, dispatch_uid="dashboard.demo_staff")
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
        post_save.connect(
            staff.staff_address_verified,
            sender=get_user_model(),
            dispatch_uid="dashboard.staff_address_verified",
        )
        password_reset.connect(signin.lift_lock, dispatch_uid="dashboard.lift_lock")
        events.charge_changed.connect(
            notifications.charge_changed, dispatch_uid="dashboard.notify_charge"
        )
        for name in ("payout_changed", "settlement_changed"):
            getattr(events, name).connect(
                notifications.payout_or_settlement_changed, dispatch_uid=f"dashboard.notify_{name}"
            )
        events.payout_batch_awaiting_approval.connect(
            notifications.batch_awaiting_approval, dispatch_uid="dashboard.notify_batch"
        )
