"""/v1/checkout/sessions: thin views that validate, call one service or selector, and render."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from checkout import selectors, services
from checkout.representations import checkout_session_repr
from checkout.serializers import SessionCreateIn, SessionListQuery
from payments.api.base import ApiView
from payments.api.pagination import paginate


def _sessions(rows) -> list[dict]:
    return [checkout_session_repr(session) for session in rows]


class SessionListCreateView(ApiView):
    @extend_schema(
        request=SessionCreateIn, responses={201: dict}, summary="Create a checkout session"
    )
    def post(self, request):
        data = self.validated(SessionCreateIn)
        session = services.session_create(merchant=self.merchant, livemode=self.livemode, **data)
        return Response(checkout_session_repr(session), status=status.HTTP_201_CREATED)

    @extend_schema(
        parameters=[SessionListQuery], responses={200: dict}, summary="List checkout sessions"
    )
    def get(self, request):
        filters = self.validated(SessionListQuery, data=request.query_params.dict())
        queryset = selectors.session_list(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        return Response(paginate(request, queryset, _sessions))


class SessionDetailView(ApiView):
    @extend_schema(responses={200: dict}, summary="Retrieve a checkout session")
    def get(self, request, session_id: str):
        session = selectors.session_get(
            merchant=self.merchant, livemode=self.livemode, session_id=session_id
        )
        return Response(checkout_session_repr(session))


class SessionExpireView(ApiView):
    @extend_schema(request=None, responses={200: dict}, summary="Expire an open checkout session")
    def post(self, request, session_id: str):
        session = selectors.session_get(
            merchant=self.merchant, livemode=self.livemode, session_id=session_id
        )
        return Response(checkout_session_repr(services.session_expire(session=session)))
