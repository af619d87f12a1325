from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "webhooks"
    verbose_name = "Webhooks"

    def ready(self) -> None:
        """The outbox records every domain event (core/events.py) in the change's transaction."""
        from core import events
        from webhooks.services import event_on_change  # models need the app registry ready

        for signal in (
            events.charge_changed,
            events.refund_changed,
            events.payout_changed,
            events.session_changed,
        ):
            signal.connect(event_on_change, dispatch_uid=f"webhooks.event_on_change.{id(signal)}")
