from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core import events


class MessagingConfig(AppConfig):
    name = "messaging"
    verbose_name = _("Text messages")

    def ready(self) -> None:
        """A completed checkout session (a payment link's included) sends the paying phone a
        receipt by SMS (core/events.py)."""
        # Models need the app registry ready; the tasks are registered in every process, being
        # enqueued by name (core/queues.py).
        from messaging import receipts, services, tasks  # noqa: F401

        events.session_changed.connect(
            receipts.receipt_on_session_changed, dispatch_uid="messaging.receipt_on_session_changed"
        )
