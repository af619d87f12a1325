"""The payout batch, its rows and the request that makes one, as the OpenAPI document describes
them (the bodies are built by batches/representations.py), with the reference's examples."""

from drf_spectacular.utils import OpenApiExample, extend_schema_serializer
from rest_framework import serializers

from batches.checks import MAX_ROWS
from batches.models import REFERENCE_MAX, BatchStatus, ItemStatus
from core.api import examples, schemas
from core.api.fields import DESCRIPTION_MAX, AmountField, CurrencyField
from payments.schemas import network_field


@extend_schema_serializer(component_name="PayoutBatchItemRequest")
class PayoutBatchItemIn(serializers.Serializer):
    """One payout of the batch, as POST /v1/payouts takes it."""

    phone = serializers.CharField(help_text="E.164: +243 then 9 digits (+243812345678).")
    amount = AmountField(help_text="Minor units, a multiple of 100 (whole francs or dollars).")
    currency = CurrencyField()
    network = network_field(help_text="The operator of that number.")
    reference = serializers.CharField(
        max_length=REFERENCE_MAX,
        help_text="Yours, unique among all your batches' rows in this mode (an invoice or "
        "employee number): a reference is never paid twice.",
    )
    description = serializers.CharField(
        required=False, max_length=DESCRIPTION_MAX, help_text="Free text."
    )


@extend_schema_serializer(component_name="PayoutBatchCreateRequest")
class PayoutBatchCreateIn(serializers.Serializer):
    items = PayoutBatchItemIn(
        many=True, help_text=f"1 to {MAX_ROWS} payouts; every one is checked before any is paid."
    )


class Counts(serializers.Serializer):
    total = serializers.IntegerField(help_text="Rows in the batch.")
    pending = serializers.IntegerField(help_text="Rows not settled yet.")
    succeeded = serializers.IntegerField(help_text="Rows paid.")
    failed = serializers.IntegerField(help_text="Rows that failed (see each row's failure_code).")


class Total(serializers.Serializer):
    currency = schemas.currency_field()
    amount = schemas.amount_field(help_text="What the rows in that currency add up to.")


class PayoutBatch(serializers.Serializer):
    """Many payouts at once, one per row, each through POST /v1/payouts' rules."""

    id = serializers.CharField(help_text="pob_ followed by 24 characters.")
    object = schemas.object_field("payout_batch")
    livemode = schemas.livemode_field()
    status = serializers.ChoiceField(
        choices=BatchStatus.values,
        help_text="processing while rows are being paid, then complete (every row succeeded or "
        "failed). Batches made in the dashboard are first draft and awaiting_approval (or "
        "rejected); so is, awaiting_approval, a batch of a live key whose account requires a "
        "second approver, until a member approves (or rejects) it in the dashboard.",
    )
    counts = Counts()
    totals = Total(many=True)
    created_at = schemas.timestamp_field()
    approved_at = schemas.timestamp_field(allow_null=True)
    completed_at = schemas.timestamp_field(allow_null=True)


class PayoutBatchItem(serializers.Serializer):
    """One row of a batch and its payout."""

    object = schemas.object_field("payout_batch_item")
    livemode = schemas.livemode_field()
    row = serializers.IntegerField(
        help_text="The index in `items` (API), or the row of the uploaded file (header = 1)."
    )
    phone = schemas.phone_field()
    amount = schemas.amount_field()
    currency = schemas.currency_field()
    network = network_field()
    reference = serializers.CharField()
    description = serializers.CharField(allow_null=True)
    status = serializers.ChoiceField(choices=ItemStatus.values)
    payout = serializers.CharField(
        allow_null=True, help_text="The row's payout (po_…), once it is made."
    )
    failure_code = schemas.failure_code_field()
    failure_message = schemas.failure_message_field()


PayoutBatchItemList = schemas.list_envelope(PayoutBatchItem, "PayoutBatchItemList")
PayoutBatchItemList.__doc__ = "A page of a batch's rows, in row order."

BATCH_ID = "pob_4HsK8wNq2ZpR7tLc1VmX9bJd"
REQUEST = {
    "items": [
        {
            "phone": "+243812345678",
            "amount": 2500000,
            "currency": "CDF",
            "network": "VODACOM_MPESA",
            "reference": "SAL-2026-11-0001",
            "description": "Salaire novembre",
        },
        {
            "phone": "+243971234567",
            "amount": 1500000,
            "currency": "CDF",
            "network": "AIRTEL_MONEY",
            "reference": "SAL-2026-11-0002",
        },
    ]
}
BATCH = {
    "id": BATCH_ID,
    "object": "payout_batch",
    "livemode": False,
    "status": "processing",
    "counts": {"total": 2, "pending": 2, "succeeded": 0, "failed": 0},
    "totals": [{"currency": "CDF", "amount": 4000000}],
    "created_at": "2026-11-25T07:30:00.104211Z",
    "approved_at": "2026-11-25T07:30:00.104211Z",
    "completed_at": None,
}
COMPLETE = {
    **BATCH,
    "status": "complete",
    "counts": {"total": 2, "pending": 0, "succeeded": 1, "failed": 1},
    "completed_at": "2026-11-25T07:30:41.880312Z",
}
AWAITING_APPROVAL = {
    **BATCH,
    "livemode": True,
    "status": "awaiting_approval",
    "counts": {"total": 2, "pending": 0, "succeeded": 0, "failed": 0},
    "approved_at": None,
}
ITEM = {
    "object": "payout_batch_item",
    "livemode": False,
    "row": 0,
    "phone": "+243812345678",
    "amount": 2500000,
    "currency": "CDF",
    "network": "VODACOM_MPESA",
    "reference": "SAL-2026-11-0001",
    "description": "Salaire novembre",
    "status": "succeeded",
    "payout": "po_7RtY2mKp9QwX4nBv1LsD6cHz",
    "failure_code": None,
    "failure_message": None,
}
FAILED_ITEM = {
    **ITEM,
    "row": 1,
    "phone": "+243971234567",
    "amount": 1500000,
    "network": "AIRTEL_MONEY",
    "reference": "SAL-2026-11-0002",
    "description": None,
    "status": "failed",
    "payout": "po_2LqW9sTx4VnM7cKb0RpZ3yFh",
    "failure_code": "recipient_invalid",
    "failure_message": "The recipient's account cannot receive this payout.",
}

BATCH_CREATE = [
    examples.request("Salaries", REQUEST, "Two payouts, paid by the workers"),
    examples.answer("Processing batch", BATCH, 201),
    examples.answer(
        "Batch awaiting approval",
        AWAITING_APPROVAL,
        201,
        "A live key, and the account requires a second approver",
    ),
]
BATCH_RETRIEVE = [examples.answer("Complete batch", COMPLETE)]
BATCH_ITEMS = [
    OpenApiExample(
        "Rows",
        value={**examples.page(f"/v1/payout_batches/{BATCH_ID}/items", ITEM, FAILED_ITEM)},
        response_only=True,
        status_codes=["200"],
    )
]
