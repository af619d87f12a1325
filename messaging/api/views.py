"""/v1/test_helpers/messages: the test inbox, for test keys only."""

from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from core.api.base import ApiView
from core.api.fields import PageQuery
from core.api.openapi import errors
from core.api.pagination import paginate
from core.errors import ResourceMissing
from messaging import selectors
from messaging.api.schemas import MESSAGE_LIST, MessageList
from messaging.representations import message_repr


def _messages(rows) -> list[dict]:
    return [message_repr(message) for message in rows]


class TestMessageListView(ApiView):
    @extend_schema(
        operation_id="test_helpers_messages_list",
        tags=["Test helpers"],
        summary="List test mode's text messages",
        description=(
            "The text messages test mode would have sent (customers' receipts, members' "
            "notifications), newest first: nothing is sent to a phone in test mode, each is "
            "kept here, `sent`. Test keys only: a live key gets 404 `resource_missing`."
        ),
        parameters=[PageQuery],
        responses={200: MessageList, **errors(404)},
        examples=MESSAGE_LIST,
    )
    def get(self, request):
        if self.livemode:
            raise ResourceMissing()
        self.validated(PageQuery, data=self.query())
        queryset = selectors.test_messages(merchant=self.merchant)
        return Response(paginate(request, queryset, _messages))
