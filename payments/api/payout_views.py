"""/v1 payouts: thin views that validate, call one service or selector, and render."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from payments import selectors
from payments.api.base import ApiView
from payments.api.pagination import paginate
from payments.api.serializers import PayoutCreateIn, PayoutListQuery
from payments.representations import payout_repr
from payments.services.payouts import payout_create


def _payouts(rows) -> list[dict]:
    return [payout_repr(payout) for payout in rows]


class PayoutListCreateView(ApiView):
    @extend_schema(request=PayoutCreateIn, responses={201: dict}, summary="Create a payout")
    def post(self, request):
        data = self.validated(PayoutCreateIn)
        payout = payout_create(merchant=self.merchant, livemode=self.livemode, **data)
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
