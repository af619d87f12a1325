"""The money pages under /dashboard/{mode}/ (included by dashboard/urls.py, in its namespace)."""

from django.urls import path

from dashboard.pages import (
    balance,
    batches,
    developers,
    messages,
    payment_links,
    payments,
    payouts,
    settlements,
)

urlpatterns = [
    path("payments/", payments.payment_list, name="payments"),
    path("payments/<str:charge_id>/", payments.payment_detail, name="payment"),
    path("payments/<str:charge_id>/refund/", payments.payment_refund, name="payment-refund"),
    path("balance/", balance.balance, name="balance"),
    path("payouts/", payouts.payout_list, name="payouts"),
    path("payouts/new/", payouts.payout_new, name="payout-new"),
    path("payouts/batches/", batches.batch_list, name="payout-batches"),
    path("payouts/batches/new/", batches.batch_new, name="payout-batch-new"),
    path("payouts/batches/template.csv", batches.batch_template, name="payout-batch-template"),
    path("payouts/batches/<str:batch_id>/", batches.batch_detail, name="payout-batch"),
    path(
        "payouts/batches/<str:batch_id>/submit/", batches.batch_submit, name="payout-batch-submit"
    ),
    path(
        "payouts/batches/<str:batch_id>/approve/",
        batches.batch_approve,
        name="payout-batch-approve",
    ),
    path(
        "payouts/batches/<str:batch_id>/reject/", batches.batch_reject, name="payout-batch-reject"
    ),
    path(
        "payouts/batches/<str:batch_id>/results.csv",
        batches.batch_results,
        name="payout-batch-results",
    ),
    path("payouts/<str:payout_id>/", payouts.payout_detail, name="payout"),
    path("settlements/", settlements.settlement_list, name="settlements"),
    path("settlements/new/", settlements.settlement_new, name="settlement-new"),
    path("settlements/schedule/", settlements.settlement_schedule, name="settlement-schedule"),
    path("settlements/<str:settlement_id>/", settlements.settlement_detail, name="settlement"),
    path("payment-links/", payment_links.link_list, name="payment-links"),
    path("payment-links/new/", payment_links.link_new, name="payment-link-new"),
    path("payment-links/<str:link_id>/", payment_links.link_detail, name="payment-link"),
    path(
        "payment-links/<str:link_id>/deactivate/",
        payment_links.link_deactivate,
        name="payment-link-deactivate",
    ),
    path(
        "payment-links/<str:link_id>/activate/",
        payment_links.link_activate,
        name="payment-link-activate",
    ),
    path("messages/", messages.test_messages, name="test-messages"),
    path("developers/", developers.developers, name="developers"),
    path("developers/keys/", developers.key_create, name="key-create"),
    path("developers/keys/<str:key_id>/revoke/", developers.key_revoke, name="key-revoke"),
    path("developers/webhook/", developers.endpoint_update, name="endpoint-update"),
    path("developers/webhook/secret/", developers.secret_reveal, name="secret-reveal"),
    path("developers/webhook/rotate/", developers.secret_rotate, name="secret-rotate"),
    path("developers/events/", developers.event_list, name="events"),
    path("developers/events/<str:event_id>/", developers.event_detail, name="event"),
    path("developers/events/<str:event_id>/resend/", developers.event_resend, name="event-resend"),
]
