"""/v1 charges, refunds, payouts, the balance and the networks: thin views that validate, call one
service or selector, and render."""

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from payments import selectors
from payments.api.base import ApiView
from payments.api.pagination import paginate
from payments.api.serializers import (
    ChargeCreateIn,
    ChargeListQuery,
    LedgerExportQuery,
    LedgerListQuery,
    NetworkListQuery,
    NetworkPredictQuery,
    PageQuery,
    PayoutCreateIn,
    PayoutListQuery,
    RefundCreateIn,
)
from payments.representations import (
    balance_repr,
    balance_transaction_repr,
    charge_created_repr,
    charge_repr,
    network_prediction_repr,
    network_repr,
    payout_repr,
    refund_repr,
)
from payments.services import charges, payouts, refunds
from payments.statement import statement_lines


def _charges(rows) -> list[dict]:
    return [charge_repr(charge) for charge in rows]


class ChargeListCreateView(ApiView):
    @extend_schema(request=ChargeCreateIn, responses={201: dict}, summary="Create a charge")
    def post(self, request):
        data = self.validated(ChargeCreateIn)
        charge = charges.charge_create(merchant=self.merchant, livemode=self.livemode, **data)
        return Response(charge_created_repr(charge), status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[ChargeListQuery], responses={200: dict}, summary="List charges")
    def get(self, request):
        filters = self.validated(ChargeListQuery, data=request.query_params.dict())
        queryset = selectors.charge_list(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        scope = selectors.charges_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, queryset, _charges, cursor_scope=scope))


class ChargeDetailView(ApiView):
    @extend_schema(responses={200: dict}, summary="Retrieve a charge")
    def get(self, request, charge_id: str):
        charge = selectors.charge_get(
            merchant=self.merchant, livemode=self.livemode, charge_id=charge_id
        )
        return Response(charge_repr(charge))


class TransactionDetailView(ChargeDetailView):
    """Same object as GET /v1/charges/{id}; used to poll a card payment for its final status."""


def _refunds(rows) -> list[dict]:
    return [refund_repr(refund) for refund in rows]


class ChargeRefundListCreateView(ApiView):
    def _charge(self, charge_id: str):
        return selectors.charge_get(
            merchant=self.merchant, livemode=self.livemode, charge_id=charge_id
        )

    @extend_schema(request=RefundCreateIn, responses={201: dict}, summary="Refund a charge")
    def post(self, request, charge_id: str):
        charge = self._charge(charge_id)
        data = self.validated(RefundCreateIn)
        refund = refunds.refund_create(charge=charge, **data)
        return Response(refund_repr(refund), status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[PageQuery], responses={200: dict}, summary="List a charge's refunds")
    def get(self, request, charge_id: str):
        charge = self._charge(charge_id)
        self.validated(PageQuery, data=request.query_params.dict())
        return Response(paginate(request, selectors.refund_list(charge=charge), _refunds))


class RefundListView(ApiView):
    @extend_schema(parameters=[PageQuery], responses={200: dict}, summary="List refunds")
    def get(self, request):
        self.validated(PageQuery, data=request.query_params.dict())
        queryset = selectors.refund_list_for_merchant(
            merchant=self.merchant, livemode=self.livemode
        )
        return Response(paginate(request, queryset, _refunds))


class RefundDetailView(ApiView):
    @extend_schema(responses={200: dict}, summary="Retrieve a refund")
    def get(self, request, refund_id: str):
        refund = selectors.refund_get(
            merchant=self.merchant, livemode=self.livemode, refund_id=refund_id
        )
        return Response(refund_repr(refund))


# --- Payouts ---


def _payouts(rows) -> list[dict]:
    return [payout_repr(payout) for payout in rows]


class PayoutListCreateView(ApiView):
    @extend_schema(request=PayoutCreateIn, responses={201: dict}, summary="Create a payout")
    def post(self, request):
        data = self.validated(PayoutCreateIn)
        payout = payouts.payout_create(merchant=self.merchant, livemode=self.livemode, **data)
        return Response(payout_repr(payout), status=status.HTTP_201_CREATED)

    @extend_schema(parameters=[PayoutListQuery], responses={200: dict}, summary="List payouts")
    def get(self, request):
        filters = self.validated(PayoutListQuery, data=request.query_params.dict())
        queryset = selectors.payout_list(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        scope = selectors.payouts_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, queryset, _payouts, cursor_scope=scope))


class PayoutDetailView(ApiView):
    @extend_schema(responses={200: dict}, summary="Retrieve a payout")
    def get(self, request, payout_id: str):
        payout = selectors.payout_get(
            merchant=self.merchant, livemode=self.livemode, payout_id=payout_id
        )
        return Response(payout_repr(payout))


# --- Balance and ledger ---

EXPORT_CHUNK = 2000  # rows read from the database at a time


def _entries(rows) -> list[dict]:
    return [balance_transaction_repr(entry) for entry in rows]


class BalanceView(ApiView):
    @extend_schema(responses={200: dict}, summary="Retrieve the balance")
    def get(self, request):
        available = selectors.balance_get(merchant=self.merchant, livemode=self.livemode)
        return Response(balance_repr(livemode=self.livemode, available=available))


class BalanceTransactionListView(ApiView):
    @extend_schema(
        parameters=[LedgerListQuery], responses={200: dict}, summary="List balance transactions"
    )
    def get(self, request):
        filters = self.validated(LedgerListQuery, data=request.query_params.dict())
        queryset = selectors.ledger_list(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        scope = selectors.ledger_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, queryset, _entries, cursor_scope=scope))


class BalanceTransactionExportView(ApiView):
    @extend_schema(
        parameters=[LedgerExportQuery],
        responses={(200, "text/csv"): str},
        summary="Export balance transactions as CSV",
    )
    def get(self, request):
        filters = self.validated(LedgerExportQuery, data=request.query_params.dict())
        rows = selectors.ledger_export_rows(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        response = StreamingHttpResponse(
            statement_lines(rows.iterator(chunk_size=EXPORT_CHUNK)),
            content_type="text/csv; charset=utf-8",
        )
        mode = "live" if self.livemode else "test"
        stamp = timezone.now().strftime("%Y%m%d-%H%M%S")
        response["Content-Disposition"] = (
            f'attachment; filename="balance-transactions-{mode}-{stamp}.csv"'
        )
        return response


# --- Networks ---


class NetworkListView(ApiView):
    @extend_schema(responses={200: dict}, summary="List the networks: status, limits, payouts")
    def get(self, request):
        self.validated(NetworkListQuery, data=request.query_params.dict())
        overview = selectors.network_overview(livemode=self.livemode)
        return Response(
            {
                "object": "list",
                "url": request.path,
                "data": [network_repr(item, livemode=self.livemode) for item in overview],
                "has_more": False,
            }
        )


class NetworkPredictView(ApiView):
    @extend_schema(
        parameters=[NetworkPredictQuery],
        responses={200: dict},
        summary="Predict the network of a phone number",
    )
    def get(self, request):
        data = self.validated(NetworkPredictQuery, data=request.query_params.dict())
        return Response(network_prediction_repr(data["phone"]))
