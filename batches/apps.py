from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from core import events


class BatchesConfig(AppConfig):
    name = "batches"
    verbose_name = _("Payout batches")

    def ready(self) -> None:
        """A batch's row follows its payout reaching a final status (core/events.py)."""
        from batches.services import item_on_payout_changed  # needs the app registry ready

        events.payout_changed.connect(
            item_on_payout_changed, dispatch_uid="batches.item_on_payout_changed"
        )
