"""/v1 routes of the payments app."""

from django.urls import path

from payments.api import ledger_views, payout_views, refund_views, views

urlpatterns = [
    path("charges", views.ChargeListCreateView.as_view(), name="charges"),
    path("charges/<str:charge_id>", views.ChargeDetailView.as_view(), name="charge"),
    path("transactions/<str:charge_id>", views.TransactionDetailView.as_view(), name="transaction"),
    path(
        "charges/<str:charge_id>/refunds",
        refund_views.ChargeRefundListCreateView.as_view(),
        name="charge-refunds",
    ),
    path("refunds", refund_views.RefundListView.as_view(), name="refunds"),
    path("refunds/<str:refund_id>", refund_views.RefundDetailView.as_view(), name="refund"),
    path("payouts", payout_views.PayoutListCreateView.as_view(), name="payouts"),
    path("payouts/<str:payout_id>", payout_views.PayoutDetailView.as_view(), name="payout"),
    path("balance", ledger_views.BalanceView.as_view(), name="balance"),
    path(
        "balance_transactions",
        ledger_views.BalanceTransactionListView.as_view(),
        name="balance-transactions",
    ),
    path(
        "balance_transactions/export",
        ledger_views.BalanceTransactionExportView.as_view(),
        name="balance-transactions-export",
    ),
]
