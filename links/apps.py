from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core import events


class LinksConfig(AppConfig):
    name = "links"
    verbose_name = _("Payment links")

    def ready(self) -> None:
        """A link counts its sessions' completions (and refuses those past max_payments), and a
        completed session whose customer gave an e-mail address gets a receipt
        (core/events.py)."""
        # Models need the app registry ready; the tasks are registered in every process, being
        # enqueued by name (core/queues.py).
        from links import services, tasks  # noqa: F401

        events.session_completing.connect(
            services.link_on_session_completing, dispatch_uid="links.link_on_session_completing"
        )
        events.session_changed.connect(
            services.receipt_on_session_changed, dispatch_uid="links.receipt_on_session_changed"
        )
