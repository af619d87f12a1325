"""/dashboard/test/messages/: the text messages test mode kept instead of sending them (the
customers' receipts, the members' notifications), newest first. There is no live inbox: live
messages go to phones."""

from django.http import Http404
from django.shortcuts import render

from dashboard.pages.common import page_of, query_without_cursor
from dashboard.permissions import merchant_view
from messaging import selectors as messaging


@merchant_view("view")
def test_messages(request, mode: str):
    if mode != "test":
        raise Http404
    scope = messaging.test_messages(merchant=request.merchant)
    page = page_of(request, scope, scope=scope)
    return render(
        request,
        "dashboard/test_messages.html",
        {"page": page, "query": query_without_cursor(request)},
    )
