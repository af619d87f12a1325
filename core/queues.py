"""How every app puts a task on the broker: by the task's name (`<app>.tasks.<function>`), so
that no services module imports the tasks module that imports it (tasks → services, one way).

Celery's signature runs the registered task's own apply_async: its options, its routes, and eager
runs in tests. Each app's tasks module is registered in every process by the app's `ready()`;
a name Celery does not know is still sent, to the broker, for the workers that know it."""

from datetime import datetime

from celery import current_app


def enqueue(
    name: str,
    *args,
    kwargs: dict | None = None,
    queue: str | None = None,
    eta: datetime | None = None,
    countdown: float | None = None,
) -> None:
    """Send task `name` with `args`; kombu's OperationalError when the broker is out of reach."""
    current_app.signature(name, args=args, kwargs=kwargs or {}).apply_async(
        queue=queue, eta=eta, countdown=countdown
    )
