"""/v1/payment_links: thin views that validate, call one service or selector, and render."""

from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from core.api.base import ApiView
from core.api.openapi import errors
from core.api.pagination import paginate
from links import selectors, services
from links.api.schemas import (
    LINK_CREATE,
    LINK_LIST,
    LINK_RETRIEVE,
    LINK_UPDATE,
    PaymentLink,
    PaymentLinkList,
)
from links.representations import payment_link_repr
from links.serializers import LinkCreateIn, LinkListQuery, LinkUpdateIn


def _links(rows) -> list[dict]:
    return [payment_link_repr(link) for link in rows]


class LinkListCreateView(ApiView):
    @extend_schema(
        operation_id="payment_links_create",
        tags=["Payment links"],
        summary="Create a payment link",
        description=(
            "A page to share (`url`, and its QR code `qr_code_url`): every customer who opens it "
            "pays on a checkout session of their own. Give `amount`, or `custom_amount: true` "
            "for the customer to type it (within the networks' limits). After `max_payments` "
            "payments, after `expires_at`, or once deactivated, the page answers 410."
        ),
        request=LinkCreateIn,
        responses={201: PaymentLink, **errors(403)},
        examples=LINK_CREATE,
    )
    def post(self, request):
        data = self.validated(LinkCreateIn)
        link = services.link_create(merchant=self.merchant, livemode=self.livemode, **data)
        return Response(payment_link_repr(link), status=status.HTTP_201_CREATED)

    @extend_schema(
        operation_id="payment_links_list",
        tags=["Payment links"],
        summary="List payment links",
        description="Your payment links in this key's mode, newest first.",
        parameters=[LinkListQuery],
        responses={200: PaymentLinkList},
        examples=LINK_LIST,
    )
    def get(self, request):
        filters = self.validated(LinkListQuery, data=self.query())
        queryset = selectors.link_list(
            merchant=self.merchant, livemode=self.livemode, filters=filters
        )
        # a link deactivated since it was shown still works as cursor for ?active=true
        scope = selectors.links_of(merchant=self.merchant, livemode=self.livemode)
        return Response(paginate(request, queryset, _links, cursor_scope=scope))


class LinkDetailView(ApiView):
    @extend_schema(
        operation_id="payment_links_retrieve",
        tags=["Payment links"],
        summary="Retrieve a payment link",
        description="The link as it is now; `payments_count` counts its completed sessions.",
        responses={200: PaymentLink},
        examples=LINK_RETRIEVE,
    )
    def get(self, request, link_id: str):
        link = selectors.link_get(merchant=self.merchant, livemode=self.livemode, link_id=link_id)
        return Response(payment_link_repr(link))

    @extend_schema(
        operation_id="payment_links_update",
        tags=["Payment links"],
        summary="Deactivate or reactivate a payment link",
        description="Only `active` changes once a link is made.",
        request=LinkUpdateIn,
        responses={200: PaymentLink},
        examples=LINK_UPDATE,
    )
    def post(self, request, link_id: str):
        link = selectors.link_get(merchant=self.merchant, livemode=self.livemode, link_id=link_id)
        data = self.validated(LinkUpdateIn)
        services.link_set_active(link=link, active=data["active"])
        return Response(payment_link_repr(link))
