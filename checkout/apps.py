from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core import events


class CheckoutConfig(AppConfig):
    name = "checkout"
    verbose_name = _("Checkout")

    def ready(self) -> None:
        """A session hears of its charges reaching a final status (core/events.py)."""
        from checkout.services import session_on_charge_changed  # needs the app registry ready

        events.charge_changed.connect(
            session_on_charge_changed, dispatch_uid="checkout.session_on_charge_changed"
        )
