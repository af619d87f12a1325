"""/v1 refunds: thin views that validate, call one service or selector, and render."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from payments import selectors
from payments.api.base import ApiView
from payments.api.pagination import paginate
from payments.api.serializers import PageQuery, RefundCreateIn
from payments.representations import refund_repr
from payments.services import refunds


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
