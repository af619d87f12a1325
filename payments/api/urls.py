"""/v1 routes of the payments app."""

from django.urls import path

from payments.api import views

urlpatterns = [
    path("charges", views.ChargeListCreateView.as_view(), name="charges"),
    path("charges/<str:charge_id>", views.ChargeDetailView.as_view(), name="charge"),
    path("transactions/<str:charge_id>", views.TransactionDetailView.as_view(), name="transaction"),
    path(
        "charges/<str:charge_id>/refunds",
        views.ChargeRefundListCreateView.as_view(),
        name="charge-refunds",
    ),
    path("refunds", views.RefundListView.as_view(), name="refunds"),
    path("refunds/<str:refund_id>", views.RefundDetailView.as_view(), name="refund"),
    path("payouts", views.PayoutListCreateView.as_view(), name="payouts"),
    path("payouts/<str:payout_id>", views.PayoutDetailView.as_view(), name="payout"),
    path("balance", views.BalanceView.as_view(), name="balance"),
    path("settlements", views.SettlementListCreateView.as_view(), name="settlements"),
    path(
        "settlements/<str:settlement_id>", views.SettlementDetailView.as_view(), name="settlement"
    ),
    path(
        "settlement_accounts",
        views.SettlementAccountListCreateView.as_view(),
        name="settlement-accounts",
    ),
    path(
        "settlement_accounts/<str:account_id>",
        views.SettlementAccountDetailView.as_view(),
        name="settlement-account",
    ),
    path("pricing", views.PricingView.as_view(), name="pricing"),
    path("networks", views.NetworkListView.as_view(), name="networks"),
    path("networks/predict", views.NetworkPredictView.as_view(), name="networks-predict"),
    path(
        "balance_transactions",
        views.BalanceTransactionListView.as_view(),
        name="balance-transactions",
    ),
    path(
        "balance_transactions/export",
        views.BalanceTransactionExportView.as_view(),
        name="balance-transactions-export",
    ),
]
