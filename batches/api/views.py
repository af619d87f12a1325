"""/v1/payout_batches: thin views that validate, call one service or selector, and render."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response

from batches import selectors, services
from batches.api import schemas
from batches.representations import payout_batch_item_repr, payout_batch_repr
from core.api.base import ApiView
from core.api.fields import PageQuery, StrictSerializer
from core.api.openapi import errors
from core.api.pagination import paginate_with


class _Body(StrictSerializer):
    """The body's one field (unknown fields and card data refused); each item is checked by
    the service, which names the first problem `items[i].column`."""

    items = serializers.JSONField()

    def to_internal_value(self, data):
        # Card data in an item is named as the contract names an item's params,
        # items[1].description: the batch's own check runs before the generic one, which would
        # name it items[1][description] (and still refuses card data anywhere else).
        if isinstance(data, dict):
            services.api_items_card_data_check(data.get("items"))
        return super().to_internal_value(data)


def _shown(batch) -> dict:
    return payout_batch_repr(batch, counts=services.batch_counts(batch_id=batch.id))


class PayoutBatchCreateView(ApiView):
    @extend_schema(
        operation_id="payout_batches_create",
        tags=["Payout batches"],
        summary="Create a payout batch",
        description=(
            "Up to 1,000 payouts at once, each checked as POST /v1/payouts checks one (phone, "
            "network, the network's limits, whole units, currency) and with a `reference` no "
            "other row of yours has: the first problem answers 400 with `param` "
            "`items[i].field`, and nothing is paid. Otherwise the batch is approved at once "
            "(your key approves it), provided your available balance covers it in each "
            "currency (else 400 balance_insufficient), and the workers pay its rows; a row "
            "that meets an insufficient balance later fails alone. With a live key of an "
            "account that requires a second approver, the batch is answered "
            "`awaiting_approval` instead: a member who may pay out (not the one who made the "
            "key) approves it in the dashboard, the balance is checked then, or rejects it. "
            "Follow it with GET or the `payout_batch.completed` webhook."
        ),
        request=schemas.PayoutBatchCreateIn,
        responses={201: schemas.PayoutBatch, **errors(403)},
        examples=schemas.BATCH_CREATE,
    )
    def post(self, request):
        data = self.validated(_Body)
        batch = services.batch_create_approved(
            merchant=self.merchant,
            livemode=self.livemode,
            items=data["items"],
            api_key=self.principal.api_key,
        )
        return Response(_shown(batch), status=status.HTTP_201_CREATED)


class PayoutBatchDetailView(ApiView):
    @extend_schema(
        operation_id="payout_batches_retrieve",
        tags=["Payout batches"],
        summary="Retrieve a payout batch",
        description="The batch as it is now, with how many rows are pending, paid and failed.",
        responses={200: schemas.PayoutBatch},
        examples=schemas.BATCH_RETRIEVE,
    )
    def get(self, request, batch_id: str):
        batch = selectors.batch_get(
            merchant=self.merchant, livemode=self.livemode, batch_id=batch_id
        )
        return Response(_shown(batch))


class ItemsQuery(PageQuery):
    starting_after = serializers.CharField(
        required=False,
        help_text="A row number of the previous page: the page starts after it (offset must "
        "then be 0).",
    )


class PayoutBatchItemsView(ApiView):
    @extend_schema(
        operation_id="payout_batches_items",
        tags=["Payout batches"],
        summary="List a payout batch's rows",
        description="Each row with its payout and status, in row order.",
        parameters=[ItemsQuery],
        responses={200: schemas.PayoutBatchItemList},
        examples=schemas.BATCH_ITEMS,
    )
    def get(self, request, batch_id: str):
        self.validated(ItemsQuery, data=self.query())
        batch = selectors.batch_get(
            merchant=self.merchant, livemode=self.livemode, batch_id=batch_id
        )
        items = selectors.batch_items(batch=batch)

        def cursor(row: str) -> tuple | None:
            if not (row.isascii() and row.isdigit()) or len(row) > 9:  # "²" is a digit too
                return None
            return items.filter(row=int(row)).values_list("row").first()

        def page(after: tuple | None, offset: int, count: int) -> list:
            rows = items if after is None else items.filter(row__gt=after[0])
            return list(rows[offset : offset + count])

        return Response(
            paginate_with(
                request,
                page=page,
                cursor=cursor,
                represent=lambda rows: [payout_batch_item_repr(item) for item in rows],
            )
        )
