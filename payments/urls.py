"""Non-API routes of the payments app (the sandbox card provider and the card receipt endpoint)."""

from django.urls import path

from payments import card_views, sandbox_card

urlpatterns: list = [
    path("card/receipt", card_views.card_receipt, name="card-receipt"),
    path("card/notify", card_views.card_notify, name="card-notify"),
    path("sandbox/card/pay", sandbox_card.pay, name="sandbox-card-pay"),
    path(
        "sandbox/card/pay/<str:transaction_id>/decide",
        sandbox_card.decide,
        name="sandbox-card-decide",
    ),
]
