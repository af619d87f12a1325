"""/v1/checkout/sessions: thin views that validate, call one service or selector, and render."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from checkout import selectors, services
from checkout.api.schemas import (
    SESSION_CREATE,
    SESSION_LIST,
    SESSION_RETRIEVE,
    CheckoutSession,
    CheckoutSessionList,
)
from checkout.representations import checkout_session_repr
from checkout.serializers import SessionCreateIn, SessionListQuery
from core.api.base import ApiView
from core.api.openapi import errors
from core.api.pagination import paginate


def _sessions(rows) -> list[dict]:
    return [checkout_session_repr(session) for session in rows]


class SessionListCreateView(ApiView):
    @extend_schema(
        operation_id="checkout_sessions_create",
        tags=["Checkout sessions"],
        summary="Create a checkout session",
        description=(
            "A payment page for one amount: send the customer to the session's `url`; they come "
            "back to `success_url` or `cancel_url`. The page offers mobile money for whole "
            "amounts and card for USD (when card payments are on). `{CHECKOUT_SESSION_ID}` in "
            "`success_url` is replaced with the session's id."
        ),
        request=SessionCreateIn,
        responses={201: CheckoutSession, **errors(403)},
        examples=SESSION_CREATE,
    )
    def post(self, request):
        data = self.validated(SessionCreateIn)
        session = services.session_create(merchant=self.merchant, livemode=self.livemode, **data)
        return Response(checkout_session_repr(session), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="checkout_sessions_list",
        tags=["Checkout sessions"],
        summary="List checkout sessions",
        description="Your checkout sessions in this key's mode, newest first.",
        parameters=[SessionListQuery],
        responses={200: CheckoutSessionList},
        examples=SESSION_LIST,
    )
    def get(self, request):
        filters = self.validated(SessionListQuery, data=self.query())
        queryset = selectors.session_list(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        # a session that expired or was paid since it was shown still works as cursor
        scope = selectors.sessions_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, queryset, _sessions, cursor_scope=scope))


class SessionDetailView(ApiView):
    @extend_schema(
        operation_id="checkout_sessions_retrieve",
        tags=["Checkout sessions"],
        summary="Retrieve a checkout session",
        description="The session as it is now; `charge` names the charge that paid it.",
        responses={200: CheckoutSession},
        examples=SESSION_RETRIEVE,
    )
    def get(self, request, session_id: str):
        session = selectors.session_get(
            merchant=self.merchant, livemode=self.livemode, session_id=session_id
        )
        return Response(checkout_session_repr(session))


class SessionExpireView(ApiView):
    @extend_schema(
        operation_id="checkout_sessions_expire",
        tags=["Checkout sessions"],
        summary="Expire an open checkout session",
        description="Close the page now: the customer can no longer pay on it (400 "
        "checkout_session_not_open when it is not open, 400 checkout_session_payment_pending "
        "while a payment on it is still pending).",
        request=None,
        responses={200: CheckoutSession},
    )
    def post(self, request, session_id: str):
        session = selectors.session_get(
            merchant=self.merchant, livemode=self.livemode, session_id=session_id
        )
        return Response(checkout_session_repr(services.session_expire(session=session)))
