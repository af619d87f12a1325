"""Our card receipt page: where the card provider sends the customer back with its signed reply.

Authenticated only by the reply's signature (no session, no CSRF token: the POST comes from the
provider's page). The service verifies it and runs the status check (at most once per charge in
a short interval, however often a reply is replayed); this view only redirects. Both paths are
throttled per client address: the receipt by THROTTLE_CARD_RECEIPTS, the provider's
notification with the operators' callbacks (THROTTLE_CALLBACKS).
"""

import logging
from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from core import throttles
from core.api.errors import callback_refusal
from core.errors import CardReplyRejected
from core.links import with_query
from payments.callbacks.views import callbacks_throttled
from payments.models import Charge
from payments.services import charges

logger = logging.getLogger("payments.card")


def _see_other(url: str) -> HttpResponseRedirect:
    response = HttpResponseRedirect(url)
    response.status_code = 303  # the browser follows with GET after this POST
    return response


def return_destination(charge: Charge) -> str | None:
    if charge.checkout_session_id:
        return f"/pay/{charge.checkout_session_id}/card-return?" + urlencode(
            {"transaction_id": charge.id}
        )
    if charge.return_url:
        return with_query(charge.return_url, {"transaction_id": charge.id, "status": charge.status})
    return None


def _reply_fields(request: HttpRequest) -> dict[str, str]:
    """The posted reply's fields. One with a NUL character is no reply of the provider's (and no
    column could be searched for it)."""
    fields = request.POST.dict()
    if any("\x00" in name or "\x00" in value for name, value in fields.items()):
        raise CardReplyRejected("the reply contains a NUL character")
    return fields


def _receipts_too_many(request: HttpRequest, wait: int) -> HttpResponse:
    response = render(request, "card/receipt_throttled.html", status=429)
    response["Retry-After"] = str(wait)
    return response


@csrf_exempt
@require_POST
@throttles.per_address("card_receipts", "THROTTLE_CARD_RECEIPTS", _receipts_too_many)
def card_receipt(request: HttpRequest) -> HttpResponse:
    try:
        charge = charges.charge_card_return(fields=_reply_fields(request))
    except CardReplyRejected as exc:
        logger.warning("card reply refused: %s", exc)
        return render(request, "card/receipt_refused.html", status=400)
    destination = return_destination(charge)
    if destination:
        return _see_other(destination)
    return render(request, "card/receipt_done.html", {"charge": charge})


@csrf_exempt
@require_POST
@callbacks_throttled
def card_notify(request: HttpRequest) -> JsonResponse:
    """The card provider's server-to-server copy of the reply (its Merchant POST URL): the same
    verification and status check as the receipt, without a browser. It settles the payment even
    when the customer closes the page before coming back."""
    try:
        charge = charges.charge_card_return(fields=_reply_fields(request))
    except CardReplyRejected as exc:
        logger.warning("card notification refused: %s", exc)
        return callback_refusal(
            request,
            400,
            type="invalid_request_error",
            code="card_reply_invalid",
            message="The card reply is not a valid signed reply of the card provider.",
        )
    logger.info("card notification for %s: %s", charge.id, charge.status)
    return JsonResponse({"received": True})
