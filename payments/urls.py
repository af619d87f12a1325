"""Non-API routes of the payments app (the card receipt and notification endpoints)."""

from django.urls import path

from payments import card_views

urlpatterns: list = [
    path("card/receipt", card_views.card_receipt, name="card-receipt"),
    path("card/notify", card_views.card_notify, name="card-notify"),
]
