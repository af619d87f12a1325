from django.apps import AppConfig

from core import events


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        """The outbox records every domain event (core/events.py) in the change's transaction,
        and a new merchant gets its two endpoints."""
        # Models need the app registry ready; the tasks are registered in every process, being
        # enqueued by name (core/queues.py).
        from webhooks import services, tasks  # noqa: F401

        for name in (
            "charge_changed",
            "refund_changed",
            "payout_changed",
            "settlement_changed",
            "session_changed",
            "payout_batch_changed",
        ):
            getattr(events, name).connect(services.event_on_change, dispatch_uid=f"webhooks.{name}")
        events.merchant_created.connect(
            services.endpoints_on_merchant_created, dispatch_uid="webhooks.merchant_created"
        )
