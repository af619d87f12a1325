"""What the SMS vendors call (delivery reports) and the customers' receipt pages (/r/{token})."""

import logging

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import translation
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_POST

from checkout.pages import LANGUAGES, language_links
from core.headers import content_security_policy
from core.money import format_customer_amount
from messaging import services
from messaging.models import SmsReceipt
from messaging.providers import registry
from messaging.providers.base import CallbackRefused, IncomingCallback

logger = logging.getLogger("messaging.callbacks")


@csrf_exempt
@require_POST
def delivery_report(request, provider: str, token: str = "") -> HttpResponse:
    """A vendor's delivery report: 200 once recorded (or for a message we do not know), 403 when
    it is not the vendor's (nothing changes)."""
    if provider not in registry.ADAPTERS or provider == "console":
        raise Http404
    callback = IncomingCallback(
        # The address as the vendor was given it (Twilio signs it), not as a proxy passed it on.
        url=f"{settings.PUBLIC_BASE_URL}{request.path}",
        headers={name.lower(): value for name, value in request.headers.items()},
        body=request.body,
        form={name: request.POST.get(name) for name in request.POST}
        if request.content_type == "application/x-www-form-urlencoded"
        else {},
    )
    try:
        reports = registry.adapter(provider).delivery_reports(callback)
    except CallbackRefused as exc:
        logger.warning("%s delivery report refused: %s", provider, exc)
        return HttpResponse(status=403)
    changed = services.delivery_reports_record(provider=provider, reports=reports)
    logger.info("%s delivery report: %s message(s) changed", provider, changed)
    return HttpResponse(status=200)


@require_GET
def receipt_page(request, token: str) -> HttpResponse:
    """The receipt of an SMS, in its language unless the customer chose another (?lang=); a page
    without scripts, small enough for any phone."""
    receipt = get_object_or_404(
        SmsReceipt.objects.select_related(
            "session__merchant", "session__succeeded_charge", "session__payment_link"
        ),
        token=token,
    )
    chosen = request.GET.get("lang")
    language = chosen if chosen in LANGUAGES else receipt.language
    session = receipt.session
    charge = session.succeeded_charge
    with translation.override(language):
        response = render(
            request,
            "messaging/receipt.html",
            {
                "merchant": session.merchant,
                "merchant_name": session.merchant.name,
                "amount_display": format_customer_amount(charge.amount, charge.currency, language),
                "paid_at": charge.finalized_at or session.completed_at,
                "charge": charge,
                "operator_reference": charge.provider_reference,
                "description": session.payment_link.description if session.payment_link else "",
                "livemode": session.livemode,
                "language": language,
                "language_links": language_links(request),
            },
        )
    response["Content-Security-Policy"] = content_security_policy()
    response["X-Frame-Options"] = "DENY"
    response["Cache-Control"] = "no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response
