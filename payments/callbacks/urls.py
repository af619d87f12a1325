"""Routes of what the providers call: the operators' callbacks and the card endpoints."""

from django.urls import path

from payments.callbacks import card, views
from payments.providers import registry

urlpatterns = [
    # The networks whose operators call back are listed by name, so the URL map (and whatever
    # walks it) shows the real endpoints; any other name reaches the same view, which answers 404.
    *(
        path(f"providers/{network}/callback", views.provider_callback, {"network": network})
        for network in registry.callback_networks()
    ),
    # Operators that post to the URL they were given followed by a path of their own.
    *(
        path(
            f"providers/{network}/callback/{suffix}",
            views.provider_callback,
            {"network": network},
        )
        for network in registry.callback_networks()
        for suffix in getattr(registry.callback_adapter(network), "callback_paths", ())
    ),
    path("providers/<str:network>/callback", views.provider_callback, name="provider-callback"),
    path("card/receipt", card.card_receipt, name="card-receipt"),
    path("card/notify", card.card_notify, name="card-notify"),
]
