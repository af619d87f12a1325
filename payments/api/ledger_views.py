"""/v1 balance and its ledger: what the merchant holds in this mode, every movement, and the
statement as CSV."""

from django.http import StreamingHttpResponse
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from payments import selectors
from payments.api.base import ApiView
from payments.api.pagination import paginate
from payments.api.serializers import LedgerExportQuery, LedgerListQuery
from payments.representations import balance_repr, balance_transaction_repr
from payments.statement import statement_lines

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
