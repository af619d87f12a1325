from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class MessagingConfig(AppConfig):
    name = "messaging"
    verbose_name = _("Text messages")

    def ready(self) -> None:
        # Models need the app registry ready; the tasks are registered in every process, being
        # enqueued by name (core/queues.py).
        from messaging import services, tasks  # noqa: F401
