"""/v1 charges: thin views that validate, call one service or selector, and render."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from payments import selectors
from payments.api.base import ApiView
from payments.api.pagination import paginate
from payments.api.serializers import ChargeCreateIn, ChargeListQuery
from payments.representations import charge_created_repr, charge_repr
from payments.services import charges


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
