"""/v1 routes of payout batches."""

from django.urls import path

from batches.api import views

urlpatterns = [
    path("payout_batches", views.PayoutBatchCreateView.as_view(), name="payout-batches"),
    path(
        "payout_batches/<str:batch_id>", views.PayoutBatchDetailView.as_view(), name="payout-batch"
    ),
    path(
        "payout_batches/<str:batch_id>/items",
        views.PayoutBatchItemsView.as_view(),
        name="payout-batch-items",
    ),
]
