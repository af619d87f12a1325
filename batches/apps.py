from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core import events


class BatchesConfig(AppConfig):
    name = "batches"
    verbose_name = _("Payout batches")

    def ready(self) -> None:
        """A batch's row follows its payout reaching a final status (core/events.py)."""
        # Models need the app registry ready; the tasks are registered in every process, being
        # enqueued by name (core/queues.py).
        from batches import services, tasks  # noqa: F401

        events.payout_changed.connect(
            services.item_on_payout_changed, dispatch_uid="batches.item_on_payout_changed"
        )
